import os, sys, time
path, rate, block, dur = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
pool = os.urandom(64<<20)
fd = os.open(path, os.O_WRONLY|os.O_CREAT|os.O_TRUNC, 0o644)
out = open(sys.argv[5], 'w')
t0 = time.monotonic(); off = 0; n = 0
bdi = sys.argv[6] if len(sys.argv) > 6 else None
while True:
    now = time.monotonic()
    if now - t0 > dur: break
    if rate > 0:
        due = t0 + n*block/rate
        if due > now: time.sleep(due-now)
    s = time.monotonic()
    os.write(fd, memoryview(pool)[off % (60<<20): off % (60<<20) + block])
    e = time.monotonic()
    dirty = ''
    if bdi:
        with open('/proc/meminfo') as f:
            for l in f:
                if l.startswith('Dirty:') or l.startswith('Writeback:'): dirty += l.split()[1] + ' '
    out.write(f"{s:.6f} {e:.6f} {dirty}\n")
    off += block; n += 1
os.close(fd)
