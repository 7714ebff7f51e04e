// The lesson page: panels of sliders, plots and guided steps around the model
// (model.js loads the WebAssembly; every number shown comes from it). A page
// setting is the same strings as the command line: the device sliders become
// `--set layer.key=value`, the recorder ones simulate's options, and the page
// prints that command for the "now do it for real" step.
"use strict";
(function () {
  let model = null;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";

  // ---- value display (labels only; results come formatted by the model) ----
  function fmtNum(v) {
    if (v === 0) return "0";
    const a = Math.abs(v);
    return a >= 100 ? String(Math.round(v)) : a >= 10 ? v.toFixed(1).replace(/\.0$/, "") : String(+v.toPrecision(2));
  }
  function fmtBytes(b) {
    const u = ["B", "kB", "MB", "GB", "TB"];
    let i = 0;
    while (b >= 1000 && i < u.length - 1) { b /= 1000; i++; }
    return fmtNum(b) + " " + u[i];
  }
  function fmtTime(s) {
    if (s < 120) return fmtNum(s) + " s";
    if (s < 7200) return fmtNum(s / 60) + " min";
    return fmtNum(s / 3600) + " h";
  }
  // Three significant digits, written plainly ("0.00123", "15600"): what --set gets.
  function plain(v) {
    if (v === 0) return "0";
    const p = Number(v.toPrecision(3));
    return Math.abs(p) >= 1e21 ? p.toExponential() : String(p);
  }
  const logPos = (v, lo, hi) => Math.round(1 + 199 * Math.log(v / lo) / Math.log(hi / lo));
  const logVal = (pos, lo, hi) => lo * Math.pow(hi / lo, (pos - 1) / 199);

  // ---- device sliders: model parameters, sent as --set when moved ----
  const deviceSliders = [
    { layer: "device", key: "burst_bytes", label: "Write cache (burst) size", lo: 1e7, hi: 2e12, zero: "none", show: fmtBytes },
    { layer: "device", key: "burst_mbps", label: "Burst rate", lo: 1, hi: 8000, zero: "none", show: (v) => fmtNum(v) + " MB/s" },
    { layer: "device", key: "sustained_mbps", label: "Sustained rate", lo: 0.1, hi: 8000, show: (v) => fmtNum(v) + " MB/s" },
    { layer: "device", key: "op_overhead_us", label: "Cost per request", lo: 1, hi: 200000, zero: "none", show: (v) => fmtNum(v) + " µs" },
    // Stalls belong to the device or the filesystem driver (exfat-fuse, ntfs-3g): the layer that has them.
    { layer: "device", stalls: true, key: "stall_interval_mb", label: "Stall every (MB written)", lo: 1, hi: 1e6, zero: "never", show: (v) => fmtNum(v) + " MB" },
    { layer: "device", stalls: true, key: "stall_duration_ms", label: "Stall length (median)", lo: 1, hi: 20000, zero: "none", show: (v) => fmtNum(v) + " ms" },
    { layer: "host", key: "dirty_limit_bytes", label: "Host page cache (dirty limit)", lo: 1e6, hi: 1e11, zero: "none (written through)", show: fmtBytes },
  ];
  // ---- recorder settings: simulate's options, as strings ----
  const pow2 = (lo, hi) => { const v = []; for (let e = lo; e <= hi; e++) v.push(e >= 30 ? (1 << (e - 30)) + "GiB" : e >= 20 ? (1 << (e - 20)) + "MiB" : e >= 10 ? (1 << (e - 10)) + "KiB" : String(1 << e)); return v; };
  const recorderSettings = [
    { opt: "channels", flag: "-c", label: "Channels", values: [1, 2, 4, 6, 8, 12, 16, 18, 20, 24, 32, 40, 48, 56, 64, 96, 128, 192, 256, 384, 512, 1024].map(String), def: "48" },
    { opt: "sample_rate", flag: "-r", label: "Sample rate per channel", values: ["8k", "16k", "25.6k", "44.1k", "48k", "96k", "192k", "1M", "10M", "40M", "160M"], def: "48k", select: true },
    { opt: "sample_bits", flag: "-b", label: "Bits per sample", values: ["8", "16", "24", "32"], def: "16", select: true },
    { opt: "format", flag: "-f", label: "File format", values: ["raw", "channels", "wav", "rf64", "w64", "caf", "tdms"], def: "w64", select: true },
    { opt: "buffer", flag: "--buffer", label: "Ring buffer", values: pow2(14, 32), def: "1MiB" },
    { opt: "block", flag: "--block", label: "Block written at a time", values: [""].concat(pow2(9, 30)), def: "", none: "half the buffer" },
    { opt: "duration", flag: "-d", label: "Duration", values: ["10s", "30s", "1min", "2min", "5min", "10min", "20min", "30min", "1h", "1.5h", "2h", "4h", "8h"], def: "20min" },
    { opt: "fill", flag: "--fill", label: "Device already full", values: ["", "10%", "20%", "30%", "40%", "50%", "60%", "70%", "80%", "85%", "90%", "95%", "98%"], def: "", none: "empty" },
    { opt: "seed", flag: "--seed", label: "Stall seed", values: ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"], def: "1" },
  ];

  let profileSpec = "", described = null;
  const touched = {};   // "layer.key" -> value set by the user
  const rec = {};       // opt -> string

  function sourceOf(s) {
    const k = s.layer + "." + s.key;
    if (k in touched) return { text: "your setting (profile: " + s.show(paramValue(s)) + ")", changed: true };
    const layer = described && described.layers[s.layer];
    const p = layer && layer.params[s.key];
    if (!layer || !layer.present) return { text: "no " + s.layer + " layer in this profile: model default", changed: false };
    if (!p || p.origin === "default") return { text: "not in the profile: model default", changed: false };
    return { text: (p.estimate ? "estimate: " : "") + p.source.replace(/^estimate: /, ""), changed: false };
  }
  function paramValue(s) {
    const layer = described && described.layers[s.layer];
    return layer && layer.params[s.key] ? layer.params[s.key].value : 0;
  }
  function currentValue(s) { const k = s.layer + "." + s.key; return k in touched ? touched[k] : paramValue(s); }

  function buildDeviceSliders() {
    const box = $("device-sliders");
    box.textContent = "";
    for (const s of deviceSliders) {
      const div = document.createElement("div");
      div.className = "slider";
      div.innerHTML = '<div class="head"><span class="name"></span><span class="value"></span></div>' +
        '<input type="range" min="0" max="200" step="1"><div class="source"></div>';
      div.querySelector(".name").textContent = s.label;
      const input = div.querySelector("input");
      input.id = "s-" + s.layer + "-" + s.key;
      input.setAttribute("aria-label", s.label);
      input.addEventListener("input", () => {
        const pos = Number(input.value);
        const v = pos === 0 ? (s.zero ? 0 : s.lo) : Number(plain(logVal(pos, s.lo, s.hi)));
        touched[s.layer + "." + s.key] = v;
        refreshDeviceSlider(s);
        schedule();
      });
      s.div = div;
      s.input = input;
      box.appendChild(div);
    }
  }
  function refreshDeviceSlider(s) {
    const v = currentValue(s);
    s.input.value = v <= 0 ? 0 : Math.min(200, Math.max(1, logPos(v, s.lo, s.hi)));
    s.div.querySelector(".value").textContent = v === 0 && s.zero ? s.zero : s.show(v);
    const src = sourceOf(s), el = s.div.querySelector(".source");
    el.textContent = src.text;
    el.className = "source" + (src.changed ? " changed" : "");
  }

  function buildRecorderSliders() {
    const box = $("recorder-sliders");
    for (const s of recorderSettings) {
      rec[s.opt] = s.def;
      const div = document.createElement("div");
      div.className = "slider";
      div.innerHTML = '<div class="head"><span class="name"></span><span class="value"></span></div>';
      div.querySelector(".name").textContent = s.label;
      let input;
      if (s.select) {
        input = document.createElement("select");
        for (const v of s.values) { const o = document.createElement("option"); o.value = o.textContent = v; input.appendChild(o); }
        input.addEventListener("change", () => { rec[s.opt] = input.value; refreshRecorder(s); schedule(); });
      } else {
        input = document.createElement("input");
        input.type = "range"; input.min = 0; input.max = s.values.length - 1; input.step = 1;
        input.addEventListener("input", () => { rec[s.opt] = s.values[Number(input.value)]; refreshRecorder(s); schedule(); });
      }
      input.id = "r-" + s.opt;
      input.setAttribute("aria-label", s.label);
      div.appendChild(input);
      s.div = div; s.input = input;
      box.appendChild(div);
      refreshRecorder(s);
    }
  }
  function refreshRecorder(s) {
    const v = rec[s.opt];
    const i = s.values.indexOf(v);
    s.input.value = s.select ? v : String(Math.max(0, i));
    s.div.querySelector(".value").textContent = v === "" ? s.none : v;
  }

  // ---- the request, and the same thing as a command line ----
  function sets() {
    return Object.keys(touched).sort().map((k) => k + "=" + plain(touched[k]));
  }
  function request(cmd) {
    const r = {};
    for (const s of recorderSettings) if (rec[s.opt] !== "") r[s.opt] = rec[s.opt];
    return { cmd: cmd, profile: profileSpec, sets: sets(), rec: r, points: 500 };
  }
  function cliArgs() {
    const a = ["simulate", "-p", profileSpec];
    for (const s of sets()) a.push("--set", s);
    for (const s of recorderSettings) if (rec[s.opt] !== "" && rec[s.opt] !== undefined) a.push(s.flag, rec[s.opt]);
    return a;
  }

  // ---- running ----
  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; run(); });
  }
  const lesson = { runs: 0, lastMs: 0, lastAnswer: null, cliArgs: cliArgs, request: () => request("simulate") };
  window.sdLesson = lesson;

  function run() {
    const req = request("simulate");
    const t0 = performance.now();
    const ans = model(req);
    const ms = performance.now() - t0;
    lesson.runs++;
    lesson.lastMs = ms;
    lesson.lastAnswer = ans;
    $("command").textContent = "streamdisk " + cliArgs().map((a) => /^[\w.,:%=+\/-]+$/.test(a) ? a : "'" + a + "'").join(" ");
    $("timing").textContent = "re-simulated in " + ms.toFixed(1) + " ms";
    if (ans.error) {
      $("verdict").textContent = ans.error;
      $("verdict").className = "verdict bad";
      $("numbers").textContent = "";
      $("plots").textContent = "";
      return;
    }
    showResult(ans);
  }

  function showResult(ans) {
    const r = ans.result, t = ans.text;
    $("verdict").textContent = r.verdict;
    $("verdict").className = "verdict " + (r.ok ? "ok" : "bad");
    const rows = [
      ["stream", t.stream],
      ["bytes written", r.payload_bytes + " (" + t.written + ")"],
      ["overrun events", String(r.overrun_events)],
      ["first overrun", r.first_overrun_s === null ? "none" : r.first_overrun_s + " s (" + t.first_overrun + ")"],
      ["peak buffer", r.peak_buffer_bytes + " B (" + t.peak_buffer + " of " + t.buffer + ")"],
      ["samples lost", String(r.samples_lost)],
      ["device stalls", r.device_stalls + " (" + fmtNum(r.device_stall_seconds) + " s in all)"],
      ["slowest block", fmtNum(r.longest_block_write_s) + " s"],
    ];
    const tb = $("numbers");
    tb.textContent = "";
    for (const [k, v] of rows) {
      const tr = tb.insertRow();
      tr.insertCell().textContent = k;
      const td = tr.insertCell();
      td.textContent = v;
      td.dataset.key = k;
    }
    drawPlots(ans);
  }

  // ---- plots: four panels sharing the time axis ----
  function drawPlots(ans) {
    const s = ans.series, r = ans.result;
    const box = $("plots");
    box.textContent = "";
    const T = Math.max(r.duration_s, s.t.length ? s.t[s.t.length - 1] : 0);
    const panels = [
      { title: "data: written (blue) against the recorder's demand (dashed)", lines: [["written_bytes", "#2563eb"]], demand: true },
      { title: ans.burst_bytes > 0 ? "device write cache in use (burst region: " + fmtBytes(ans.burst_bytes) + ")" : "device write cache: none in this profile", lines: [["cache_bytes", "#9333ea"]], max: ans.burst_bytes },
      { title: "host dirty bytes (page cache not yet on the device)", lines: [["dirty_bytes", "#ea580c"]] },
      { title: "ring buffer fill (top = full: the next period is dropped)", lines: [["ring_bytes", "#059669"]], max: r.buffer_bytes },
    ];
    const W = 800, H = 130, L = 70, R = 10, Tp = 18, B = 22;
    for (const p of panels) {
      let ymax = p.max || 0;
      for (const [k] of p.lines) for (const v of s[k]) ymax = Math.max(ymax, v);
      if (p.demand) for (const v of s.demand_bytes) ymax = Math.max(ymax, v);
      if (!(ymax > 0)) ymax = 1;
      const x = (tt) => L + (W - L - R) * (T > 0 ? tt / T : 0);
      const y = (v) => Tp + (H - Tp - B) * (1 - v / ymax);
      const svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
      svg.setAttribute("class", "plot");
      const add = (tag, attrs, text) => {
        const e = document.createElementNS(SVG, tag);
        for (const a in attrs) e.setAttribute(a, attrs[a]);
        if (text !== undefined) e.textContent = text;
        svg.appendChild(e);
        return e;
      };
      add("text", { x: L, y: 12 }, p.title);
      add("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B });
      add("line", { class: "axis", x1: L, y1: Tp, x2: L, y2: H - B });
      add("text", { x: 4, y: Tp + 10 }, p.max === 0 ? "none" : fmtBytes(ymax));
      add("text", { x: 4, y: H - B }, "0");
      for (let i = 0; i <= 4; i++)
        add("text", { x: x(T * i / 4), y: H - 6, "text-anchor": i === 0 ? "start" : i === 4 ? "end" : "middle" }, fmtTime(T * i / 4));
      for (const o of s.overruns) add("line", { class: "overrun", x1: x(o.t), y1: Tp, x2: x(o.t), y2: H - B });
      const pts = (arr) => arr.map((v, i) => x(s.t[i]).toFixed(1) + "," + y(v).toFixed(1)).join(" ");
      if (p.demand) add("polyline", { class: "demand", points: pts(s.demand_bytes) });
      for (const [k, color] of p.lines) add("polyline", { class: "line", stroke: color, points: pts(s[k]), "data-series": k });
      box.appendChild(svg);
    }
  }

  // ---- profiles ----
  function selectProfile(spec, keepTouched) {
    profileSpec = spec;
    $("profile").value = spec;
    if (!keepTouched) for (const k of Object.keys(touched)) delete touched[k];
    described = model({ cmd: "describe", profile: spec });
    $("profile-summary").textContent = described.error || described.summary ||
      (described.layers.device.present ? described.layers.device.summary : "");
    const fsStalls = !described.error && described.layers.filesystem.params.stall_interval_mb.origin === "profile";
    for (const s of deviceSliders) {
      if (s.stalls) {
        s.layer = fsStalls ? "filesystem" : "device";
        s.div.querySelector(".name").textContent = s.label + (fsStalls ? " (filesystem driver)" : "");
        s.input.id = "s-stall-" + s.key;
      }
      refreshDeviceSlider(s);
    }
    schedule();
  }

  // ---- guided steps: the four experiments of the teachers' tutorial ----
  const steps = [
    {
      title: "1. The box says 1900 MB/s (write caches)",
      profile: "usrp-2974", rec: { channels: "2", sample_rate: "160M", sample_bits: "16", format: "raw", buffer: "256MiB", duration: "10s" },
      question: "The USRP records 2 channels of 160 MS/s: 640 MB/s. Its NVMe drive is sold as 1500–1900 MB/s. Does a 10 s recording keep up? Now set the duration to 1 min, then 2 min.",
      look: "The blue line follows the demand while the write cache (purple) fills; when the cache is full the device falls to its sustained rate, the ring buffer fills within a second and overruns (red) begin. Which number should a recording engineer use?",
    },
    {
      title: "2. The rate depends on the block size (cost per request)",
      profile: "crio-9014", rec: { channels: "16", sample_rate: "25.6k", sample_bits: "32", format: "tdms", buffer: "8MiB", block: "4MiB", duration: "10min" },
      question: "A cRIO controller streams 16 channels at 25.6 kS/s (1.6 MB/s) to a disk that peaks at 4 MB/s. Move the block size down from 4 MiB to 64 KiB. Where does it stop keeping up?",
      look: "Every write pays the same cost before the first byte moves (the 'cost per request' slider): small blocks spend the time on that cost, and the written line falls below the demand.",
    },
    {
      title: "3. The operating system hides the disk (page cache)",
      profile: "laptop-doc001", rec: { channels: "4", sample_rate: "10M", sample_bits: "16", format: "raw", buffer: "64MiB", duration: "1min" },
      question: "Document 001's laptop records 4 channels at 10 MS/s, 16-bit: 80 MB/s, well under its SSD's 187 MB/s. Raise the sample rate to 40M (320 MB/s). How long does it seem fine?",
      look: "The orange line: the first gigabyte goes into memory at memory speed (host dirty bytes rise to the limit), then the writes wait for the disk. Set the page cache to 'none' to see the disk alone.",
    },
    {
      title: "4. The average is not enough (stalls against the buffer)",
      profile: "rpi4-buster-ultrafit-exfat", rec: { channels: "18", sample_rate: "48k", sample_bits: "16", format: "w64", buffer: "2MiB", block: "1MiB", duration: "20min", seed: "8" },
      question: "A Raspberry Pi records 18 channels (1.7 MB/s) to a USB stick that dd rates at 5.9 MB/s. The average is three times what is needed: are there overruns? Raise the ring buffer step by step: which size survives?",
      look: "With stall seed 8 the green ring fills to the top at a stall of the stick (red mark), though the average rate is ample; with most seeds the 20 minutes go through. A buffer must cover the longest pause, not the average rate. Try other stall seeds: it is a matter of chance, and 'What would you buy?' below counts the chances.",
    },
  ];
  function buildSteps() {
    const box = $("step-cards");
    steps.forEach((st, i) => {
      const div = document.createElement("div");
      div.className = "card";
      div.innerHTML = '<h3></h3><p class="q"></p><button type="button">Set it up</button><p class="look"></p>';
      div.querySelector("h3").textContent = st.title;
      div.querySelector(".q").textContent = st.question;
      div.querySelector(".look").textContent = "What to look for: " + st.look;
      const b = div.querySelector("button");
      b.id = "step-" + (i + 1);
      b.addEventListener("click", () => { applyStep(st); $("results").scrollIntoView({ behavior: "smooth" }); });
      box.appendChild(div);
    });
  }
  function applyStep(st) {
    for (const s of recorderSettings) { rec[s.opt] = st.rec[s.opt] !== undefined ? st.rec[s.opt] : s.def; refreshRecorder(s); }
    selectProfile(st.profile, false);
  }

  // ---- what would you buy: capacity over the built-in devices ----
  let builtins = [];
  function runBuy() {
    const tb = $("buy-table");
    tb.textContent = "";
    const head = tb.insertRow();
    for (const h of ["device", "profile used", "most channels (P < 5 %)", "limited by"]) {
      const th = document.createElement("th"); th.textContent = h; head.appendChild(th);
    }
    const names = new Set(builtins.map((p) => p.name));
    const prefix = ["host", "filesystem"].map((l) => described.layers[l]).filter((l) => l.present && names.has(l.name)).map((l) => l.name + "+").join("");
    const devices = builtins.filter((p) => p.layer === "device").map((p) => p.name);
    const rows = devices.map((d) => {
      const tr = tb.insertRow();
      tr.insertCell().textContent = d;
      tr.insertCell().textContent = prefix + d;
      tr.insertCell().textContent = "…";
      tr.insertCell();
      return tr;
    });
    const base = request("capacity");
    delete base.rec.channels;
    let i = 0;
    const next = () => {
      if (i >= devices.length) { $("buy-run").disabled = false; lesson.buyDone = true; return; }
      const ans = model(Object.assign({}, base, { profile: prefix + devices[i], sets: [] }));
      lesson.buy.push(ans);
      const tr = rows[i];
      if (ans.error) { tr.cells[2].textContent = "-"; tr.cells[3].textContent = ans.error; }
      else {
        tr.cells[2].textContent = !ans.found ? "none" : ans.band_low !== ans.band_high ? ans.band_low + "–" + ans.band_high : String(ans.channels);
        tr.cells[3].textContent = ans.limited_by || "";
      }
      i++;
      setTimeout(next, 0);
    };
    $("buy-run").disabled = true;
    lesson.buy = [];
    lesson.buyDone = false;
    lesson.buyArgs = ["capacity", "-p", prefix + "*"].concat(cliArgs().slice(3).filter((a, k, all) => a !== "-c" && all[k - 1] !== "-c"));
    setTimeout(next, 0);
  }

  // ---- start ----
  async function start() {
    const bin = atob(SD_WASM_BASE64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    model = await sdLoadModel(bytes);
    const list = model({ cmd: "profiles" });
    builtins = list.profiles;
    const sel = $("profile");
    for (const p of builtins) {
      if (p.layer !== "composite" && p.layer !== "device") continue;
      const o = document.createElement("option");
      o.value = p.name;
      o.textContent = p.name + (p.layer === "device" ? " (device alone)" : "");
      sel.appendChild(o);
    }
    sel.addEventListener("change", () => selectProfile(sel.value, false));
    $("reset-device").addEventListener("click", () => selectProfile(profileSpec, false));
    $("buy-run").addEventListener("click", runBuy);
    buildDeviceSliders();
    buildRecorderSliders();
    buildSteps();
    applyStep(steps[3]);
    $("status").textContent = "Model loaded: " + builtins.length + " built-in profiles.";
    lesson.ready = true;
  }
  start().catch((e) => { $("status").textContent = "The model could not start: " + e; lesson.error = String(e); });
})();
