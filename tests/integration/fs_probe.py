#!/usr/bin/env python3
"""Probes what a mounted filesystem supports, one line per call:
"<call> <result>", where the result is "ok", an errno name, or a value.
Run the same probe on a streamdisk mount and on the real driver: the lines
must agree (tests/integration/mount_semantics.sh).

fs_probe.py DIR
"""
import ctypes
import errno
import os
import sys

FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]


def name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if isinstance(e, OSError) else type(e).__name__


def probe(label, fn):
    try:
        r = fn()
        print(label, "ok" if r is None else r)
    except OSError as e:
        print(label, name(e))


def fallocate(path, mode):
    fd = os.open(path, os.O_RDWR)
    try:
        if libc.fallocate(fd, mode, 0, 65536) != 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    finally:
        os.close(fd)


def main(d):
    f = os.path.join(d, "Take1.WAV")
    with open(f, "wb") as out:
        out.write(b"x" * 1000)
    probe("symlink", lambda: os.symlink("Take1.WAV", os.path.join(d, "ln")))
    probe("link", lambda: os.link(f, os.path.join(d, "hard")))
    probe("setxattr", lambda: os.setxattr(f, "user.take", b"1"))
    probe("getxattr-missing", lambda: os.getxattr(f, "user.none"))
    probe("listxattr-has-take", lambda: str("user.take" in os.listxattr(f)))
    probe("open-other-case", lambda: str(os.stat(os.path.join(d, "take1.wav")).st_size))
    probe("mkdir-other-case", lambda: os.mkdir(os.path.join(d, "TAKE1.wav")))
    probe("create-colon", lambda: open(os.path.join(d, "a:b"), "wb").close())
    probe("create-255", lambda: open(os.path.join(d, "n" * 255), "wb").close())
    probe("create-256", lambda: open(os.path.join(d, "n" * 256), "wb").close())
    probe("chmod-0644", lambda: os.chmod(f, 0o644))
    probe("mode-after-0644", lambda: oct(os.stat(f).st_mode & 0o7777))
    probe("chmod-0777", lambda: os.chmod(f, 0o777))
    probe("mode-after-0777", lambda: oct(os.stat(f).st_mode & 0o7777))
    probe("chmod-4755", lambda: os.chmod(f, 0o4755))
    probe("chmod-a-w", lambda: os.chmod(f, os.stat(f).st_mode & 0o555))
    probe("mode-after", lambda: oct(os.stat(f).st_mode & 0o7777))
    sub = os.path.join(d, "sub")
    os.mkdir(sub)
    probe("dir-chmod-a-w", lambda: os.chmod(sub, os.stat(sub).st_mode & 0o555))
    probe("dir-mode-after", lambda: oct(os.stat(sub).st_mode & 0o7777))
    probe("chown-other", lambda: os.chown(f, 1234, 1234))
    probe("utime-odd", lambda: os.utime(f, ns=(1_000_000_001_123_456_789, 1_000_000_001_123_456_789)))
    probe("mtime-ns-after", lambda: str(os.stat(f).st_mtime_ns))
    g = os.path.join(d, "alloc.bin")
    open(g, "wb").close()
    probe("fallocate", lambda: fallocate(g, 0))
    probe("fallocate-keep-size", lambda: fallocate(g, FALLOC_FL_KEEP_SIZE))
    probe("fallocate-punch", lambda: fallocate(g, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE))
    probe("size-after-fallocate", lambda: str(os.stat(g).st_size))
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    probe("fdatasync-dir", lambda: os.fdatasync(fd))
    probe("fsync-dir", lambda: os.fsync(fd))
    os.close(fd)
    probe("statfs-namemax", lambda: str(os.statvfs(d).f_namemax))
    probe("blksize", lambda: str(os.stat(f).st_blksize))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
