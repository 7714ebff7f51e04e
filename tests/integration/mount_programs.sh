#!/usr/bin/env bash
# The compatibility matrix (docs/mount.md): real programs write through the
# mount of every built-in filesystem profile; each result is checked in the
# backing directory (readable, right length, right content where the input
# is known), and the trace shows the model saw every byte of it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
for t in sox soxi ffmpeg sqlite3 rsync tar arecord; do command -v $t >/dev/null || skip "$t is not installed (run.sh installs it)"; done
SYSPY=/usr/bin/python3  # Debian's python3-soundfile lives beside Debian's python
# 1 s of a known 16-bit signal, as bytes (no numpy needed).
SAMPLES="import array, math, sys, soundfile as sf
x = array.array('h', (int(math.sin(i * 0.05) * 20000) for i in range(48000))).tobytes()"

# Inputs with known content.
mkdir -p "$WORK/src/sub"
for i in 1 2 3; do head -c $((i * 100003)) /dev/urandom >"$WORK/src/file$i.bin"; done
head -c 4096 /dev/urandom >"$WORK/src/sub/small.bin"
sox -R -D -n -r 48000 -b 16 -c 2 "$WORK/ref-sox.wav" synth 1 sine 440
# ffmpeg (bit-exact, so the same input gives the same bytes): a WAV whose
# header is rewritten at the end, and a Matroska file (FLAC audio, FFV1
# video) whose cues and seek head are written after the clusters.
FFMPEG=(ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=1")
EXACT=(-fflags +bitexact -flags +bitexact)  # output options: no random segment UID, no version strings
ffmpeg_wav() { "${FFMPEG[@]}" -ac 2 -c:a pcm_s16le "${EXACT[@]}" "$1"; }
ffmpeg_mkv() { "${FFMPEG[@]}" -f lavfi -i "testsrc=size=160x120:rate=25:duration=1" -c:a flac -c:v ffv1 "${EXACT[@]}" "$1"; }
ffmpeg_wav "$WORK/ref-ffmpeg.wav" && ffmpeg_mkv "$WORK/ref-ffmpeg.mkv" || fail "ffmpeg failed on local disk"

# covered FILE...: the model saw every byte of each $BACK/FILE (run after stop_mount).
covered() {
  local args=() f
  for f in "$@"; do args+=("$(stat -c %i "$BACK/$f")" "$(stat -c %s "$BACK/$f")"); done
  $PY "$HERE/mount_client.py" coverage "$WORK/trace.csv" "${args[@]}" >/dev/null || fail "$fs: the trace does not cover $*"
}

for fs in ext4 fat32 exfat-kernel exfat-fuse ntfs-3g; do
  rm -rf "${BACK:?}"/* "$WORK/trace.csv" "$WORK/untar"
  start_mount -p "$fs+samsung-960evo-250g" --backing "$BACK" --trace "$WORK/trace.csv"
  # sox: a 1 s stereo WAV, byte for byte the one written to local disk (-R -D: no random dither).
  sox -R -D -n -r 48000 -b 16 -c 2 "$MNT/sox.wav" synth 1 sine 440 || fail "$fs: sox failed"
  ffmpeg_wav "$MNT/ffmpeg.wav" || fail "$fs: ffmpeg (WAV) failed"
  ffmpeg_mkv "$MNT/ffmpeg.mkv" || fail "$fs: ffmpeg (Matroska) failed"
  # arecord (ALSA's null capture device, no sound hardware): 1 s, header rewritten at the end.
  arecord -q -D null -f S16_LE -r 48000 -c 2 -d 1 "$MNT/arecord.wav" || fail "$fs: arecord failed"
  # Python soundfile (libsndfile): a FLAC of known samples (1 s).
  $SYSPY -c "$SAMPLES
with sf.SoundFile(sys.argv[1], 'w', 48000, 1, 'PCM_16', format='FLAC') as f: f.buffer_write(x, dtype='int16')" \
    "$MNT/sf.flac" || fail "$fs: soundfile failed"
  # Python mmap: 512 KiB through a shared writable mapping.
  read -r _ sum < <($PY "$HERE/mount_client.py" mmapwrite "$MNT/mapped.bin" 524288 11) || fail "$fs: mmap writer failed"
  # SQLite in WAL mode (its -shm index is a shared mapping).
  sqlite3 "$MNT/db.sqlite" "pragma journal_mode=wal;" "create table t(x);" \
    "with recursive c(i) as (select 1 union all select i + 1 from c where i < 1000) insert into t select randomblob(100) from c;" \
    "pragma wal_checkpoint(truncate);" >/dev/null || fail "$fs: sqlite3 failed"
  # rsync and tar.
  # rsync -a: on fat32 and exfat-kernel its fchmod to modes the filesystem
  # cannot hold (0600, 0644) succeeds and changes nothing, as on vfat.
  rsync -a "$WORK/src/" "$MNT/rs/" 2>"$WORK/rsync.err" || fail "$fs: rsync -a exited $?: $(head -3 "$WORK/rsync.err")"
  tar -cf "$MNT/a.tar" -C "$WORK" src || fail "$fs: tar failed"
  stop_mount
  [ "$MOUNT_RC" -eq 0 ] || fail "$fs: mount exited with $MOUNT_RC"

  cmp -s "$WORK/ref-sox.wav" "$BACK/sox.wav" || fail "$fs: sox.wav differs from the same file written locally"
  for f in ffmpeg.wav ffmpeg.mkv; do
    cmp -s "$WORK/ref-$f" "$BACK/$f" || fail "$fs: $f differs from the same file written locally"
  done
  [ "$(soxi -D "$BACK/arecord.wav")" = 1.000000 ] && [ "$(stat -c %s "$BACK/arecord.wav")" -eq 192044 ] ||
    fail "$fs: arecord.wav is not 1 s of 48 kHz stereo"
  $SYSPY -c "$SAMPLES
with sf.SoundFile(sys.argv[1]) as f: sys.exit(not (f.samplerate == 48000 and f.buffer_read(dtype='int16') == x))" \
    "$BACK/sf.flac" || fail "$fs: sf.flac does not hold the samples written"
  [ "$(sha256sum <"$BACK/mapped.bin" | cut -d' ' -f1)" = "$sum" ] || fail "$fs: mapped.bin differs from what was mapped"
  [ "$(sqlite3 "$BACK/db.sqlite" "pragma integrity_check;" "select count(*) from t;" | tr '\n' ' ')" = "ok 1000 " ] ||
    fail "$fs: the SQLite database is damaged or short"
  diff -r "$WORK/src" "$BACK/rs" >/dev/null || fail "$fs: rsync's copy differs"
  mkdir -p "$WORK/untar" && tar -xf "$BACK/a.tar" -C "$WORK/untar" && diff -r "$WORK/src" "$WORK/untar/src" >/dev/null ||
    fail "$fs: the tar archive does not hold the files"
  covered sox.wav ffmpeg.wav ffmpeg.mkv arecord.wav sf.flac mapped.bin db.sqlite rs/file3.bin a.tar
  echo "$fs: sox, ffmpeg (WAV, Matroska), arecord, soundfile, mmap, sqlite (WAL), rsync, tar: files intact, every byte modelled"
done
finish
