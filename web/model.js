// The model in WebAssembly (web/lesson_api.cpp), for the page and for node.
// WASI is answered just enough for a program that reads no files: no
// preopened directories, every path "no such file", stdout/stderr to console.
"use strict";
// sdLoadModel(bytes) resolves to call(request object) -> answer object.
async function sdLoadModel(bytes) {
  const EBADF = 8, ENOENT = 44, ESPIPE = 70;
  let memory = null;
  const dv = () => new DataView(memory.buffer);
  const wasi = {
    environ_sizes_get(countPtr, sizePtr) { dv().setUint32(countPtr, 0, true); dv().setUint32(sizePtr, 0, true); return 0; },
    environ_get() { return 0; },
    fd_write(fd, iovs, n, nwritten) {
      let text = "", total = 0;
      for (let i = 0; i < n; i++) {
        const p = dv().getUint32(iovs + 8 * i, true), len = dv().getUint32(iovs + 8 * i + 4, true);
        text += new TextDecoder().decode(new Uint8Array(memory.buffer, p, len));
        total += len;
      }
      if (fd === 1 || fd === 2) console.log("streamdisk model: " + text);
      dv().setUint32(nwritten, total, true);
      return fd === 1 || fd === 2 ? 0 : EBADF;
    },
    fd_read() { return EBADF; },
    fd_seek() { return ESPIPE; },
    fd_close() { return EBADF; },
    fd_fdstat_get() { return EBADF; },
    fd_filestat_get() { return EBADF; },
    fd_prestat_get() { return EBADF; },
    fd_prestat_dir_name() { return EBADF; },
    path_filestat_get() { return ENOENT; },
    path_open() { return ENOENT; },
    proc_exit(code) { throw new Error("the model stopped (exit " + code + ")"); },
  };
  const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasi });
  memory = instance.exports.memory;
  instance.exports._initialize();
  const ex = instance.exports;
  // One request: an object in, an object out ({error: "..."} on bad input).
  return function call(request) {
    const text = new TextEncoder().encode(JSON.stringify(request));
    const p = ex.sd_request(text.length);
    new Uint8Array(memory.buffer, p, text.length).set(text);
    const r = ex.sd_call();
    const n = ex.sd_response_size();
    return JSON.parse(new TextDecoder().decode(new Uint8Array(memory.buffer, r, n)));
  };
}
if (typeof module !== "undefined") module.exports = { sdLoadModel };
