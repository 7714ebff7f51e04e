#!/usr/bin/env python3
"""Test client for `streamdisk mount` integration tests.

roundtrip MNT BACK  : threads write random blocks at random offsets into
                      several files, then every file is compared with the
                      expected bytes through the mount and in BACK.
mixed MNT SECONDS   : two threads, two files, random block sizes and think
                      times, an fsync now and then (a recorder-like mix).
fill PATH BLOCK     : writes BLOCK-byte blocks to PATH until an error;
                      prints "<bytes written> <errno name>".
mmapwrite PATH SIZE SEED : creates PATH, sizes it with ftruncate, fills it
                      through a shared writable mapping (1 MiB at a time,
                      msync every 4 MiB and at the end), closes; prints the
                      seconds it took and the SHA-256 of what it wrote.
mapread PATH        : SHA-256 of PATH read through a shared read-only mapping.
coverage TRACE FILE SIZE [FILE SIZE ...] : checks that the trace's successful
                      writes of each FILE cover bytes [0, SIZE) and carry
                      modelled end times.
syncwrite PATH FLAG N : N writes of 64 KiB to PATH opened with O_SYNC or O_DSYNC.
hints PATH          : writes 1 MiB, then posix_fadvise(DONTNEED) and
                      sync_file_range(WAIT_BEFORE|WRITE|WAIT_AFTER) on it.
copy SRC DST        : copies SRC to DST with copy_file_range.
append PATH TAG N   : N lines "TAG <i> ...\n" of 100 bytes, O_APPEND, one write each.
"""
import ctypes
import hashlib
import mmap
import time
import errno
import os
import random
import sys
import threading


def roundtrip(mnt, back):
    nfiles, nthreads, slot_bytes, slots = 4, 4, 256 << 10, 16
    size = slot_bytes * slots
    expected = [bytearray(size) for _ in range(nfiles)]
    written = [0] * nfiles  # high-water mark per file
    lock = threading.Lock()
    errors = []

    def worker(tid):
        rng = random.Random(tid)
        try:
            fds = [os.open(os.path.join(mnt, f"f{i}"), os.O_RDWR | os.O_CREAT, 0o644) for i in range(nfiles)]
            for _ in range(60):
                i = rng.randrange(nfiles)
                # Thread t owns slots t, t + nthreads, ...: concurrent writes never overlap.
                slot = rng.randrange(slots // nthreads) * nthreads + tid
                off = slot * slot_bytes + rng.randrange(slot_bytes)
                n = rng.randint(1, slot_bytes * (slot + 1) - off)
                data = rng.randbytes(n)
                assert os.pwrite(fds[i], data, off) == n
                with lock:
                    expected[i][off:off + n] = data
                    written[i] = max(written[i], off + n)
            for fd in fds:
                os.close(fd)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {tid}: {e!r}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    bad = 0
    for i in range(nfiles):
        want = bytes(expected[i][:written[i]])
        for where in (mnt, back):
            with open(os.path.join(where, f"f{i}"), "rb") as f:
                got = f.read()
            if got != want:
                print(f"f{i} in {where}: {len(got)} bytes, expected {len(want)}; differ", file=sys.stderr)
                bad += 1
    return 1 if bad else 0


def mixed(mnt, seconds):
    import time
    errors = []

    def worker(tid):
        rng = random.Random(100 + tid)
        try:
            fd = os.open(os.path.join(mnt, f"m{tid}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            end, off, k = time.monotonic() + seconds, 0, 0
            while time.monotonic() < end:
                n = rng.choice([4096, 65536, 300_000, 1 << 20])
                done = os.pwrite(fd, rng.randbytes(n), off)
                if done != n:
                    raise OSError(f"short write: {done} of {n} bytes at offset {off}")
                off += done
                k += 1
                if k % 20 == 0:
                    os.fsync(fd)
                time.sleep(rng.choice([0, 0, 0.001, 0.01]))
            os.close(fd)
            if k == 0:
                raise RuntimeError("no write completed")
        except Exception as e:  # noqa: BLE001 - reported below; a thread's exception would not reach the exit status
            errors.append(f"thread {tid}: {e!r}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    return 0


def fill(path, block):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    total, buf = 0, b"\xa5" * block
    try:
        while True:
            n = os.write(fd, buf)
            total += n
    except OSError as e:
        print(total, errno.errorcode.get(e.errno, str(e.errno)))
    finally:
        os.close(fd)
    return 0


def pattern(size, seed):
    r, step = random.Random(seed), 1 << 20
    return b"".join(r.randbytes(min(step, size - off)) for off in range(0, size, step))


def mmapwrite(path, size, seed):
    data = pattern(size, seed)
    t0 = time.monotonic()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(fd, size)
    with mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE) as m:
        step = 1 << 20
        for off in range(0, size, step):
            m[off:off + step] = data[off:off + step]
            if (off + step) % (4 << 20) == 0:
                m.flush()
        m.flush()
    os.close(fd)
    print(f"{time.monotonic() - t0:.6f}", hashlib.sha256(data).hexdigest())
    return 0


def syncwrite(path, flag, n):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, flag), 0o644)
    for i in range(n):
        os.write(fd, bytes([i % 256]) * 65536)
    os.close(fd)
    return 0


def hints(path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"\x5a" * (1 << 20))
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.sync_file_range.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    if libc.sync_file_range(fd, 0, 0, 1 | 2 | 4) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "sync_file_range: " + os.strerror(e))
    os.close(fd)
    return 0


def copy(src, dst):
    fi = os.open(src, os.O_RDONLY)
    fo = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    left = os.fstat(fi).st_size
    while left > 0:
        n = os.copy_file_range(fi, fo, left)
        if n == 0:
            break
        left -= n
    os.close(fi)
    os.close(fo)
    return 0


def append(path, tag, n):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for i in range(n):
        line = f"{tag} {i:06d} ".encode()
        os.write(fd, line + b"." * (99 - len(line)) + b"\n")
    os.close(fd)
    return 0


def mapread(path):
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        print(hashlib.sha256(m[:]).hexdigest())
    return 0


def coverage(trace, wanted):
    """wanted: {file id: size}. Exits naming the first gap."""
    import csv
    spans = {f: [] for f in wanted}
    with open(trace) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["op"] != "write" or r["file"] not in spans or r["error"] != "0":
                continue
            off, n = int(r["offset"]), int(r["bytes"])
            if float(r["modelled_end_s"] or r["end_s"]) < float(r["start_s"]):
                sys.exit(f"write at {off} ends in the model before it starts")
            spans[r["file"]].append((off, off + n))
    for file, size in wanted.items():
        covered = 0
        for a, b in sorted(spans[file]):
            if a > covered:
                sys.exit(f"bytes [{covered}, {a}) of file {file} never reached the model")
            covered = max(covered, b)
        if covered < size:
            sys.exit(f"the model saw file {file} up to byte {covered} of {size}")
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "roundtrip":
        sys.exit(roundtrip(sys.argv[2], sys.argv[3]))
    if cmd == "mixed":
        sys.exit(mixed(sys.argv[2], float(sys.argv[3])))
    if cmd == "fill":
        sys.exit(fill(sys.argv[2], int(sys.argv[3])))
    if cmd == "mmapwrite":
        sys.exit(mmapwrite(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    if cmd == "syncwrite":
        sys.exit(syncwrite(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    if cmd == "hints":
        sys.exit(hints(sys.argv[2]))
    if cmd == "copy":
        sys.exit(copy(sys.argv[2], sys.argv[3]))
    if cmd == "append":
        sys.exit(append(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    if cmd == "mapread":
        sys.exit(mapread(sys.argv[2]))
    if cmd == "coverage":  # TRACE FILE SIZE [FILE SIZE ...]
        pairs = sys.argv[3:]
        sys.exit(coverage(sys.argv[2], {pairs[k]: int(pairs[k + 1]) for k in range(0, len(pairs), 2)}))
    sys.exit(f"unknown command {cmd}")
