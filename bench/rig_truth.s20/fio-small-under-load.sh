#!/bin/bash
# Session 20: small direct writes (4 KiB, Poisson arrivals at 10/s, libaio: open loop,
# so a blocked write does not delay the next one's issue) while fio keeps QD big
# direct writes (1 MiB) in flight, on a fresh rig. As root, from anywhere:
#   bench/rig_truth.s20/fio-small-under-load.sh RIG OUTDIR FILL   (FILL: bytes written first, e.g. 350M past cliff's cache, or 0)
# Summary: small-under-load-open-loop.txt. (A closed-loop run, fio's psync with rate_iops,
# misleads: after one blocked write fio issues its backlog at once and those are fast.)
rig=$1 out=$2 fill=$3; mkdir -p $out
cd "$(dirname "$0")/../.." || exit 2
d=$(mktemp -d /tmp/sd-fio-rig.XXXXXX)
mnt=$(tests/rig/rig.sh up $rig $d) || exit 1
trap "tests/rig/rig.sh down $d" EXIT
fio --name=prep --filename=$mnt/small --size=64M --rw=write --bs=1M --direct=1 --refill_buffers --output=/dev/null
[ "$fill" != 0 ] && fio --name=fill --filename=$mnt/fill --size=$fill --rw=write --bs=1M --direct=1 --ioengine=libaio --iodepth=4 --refill_buffers --output=/dev/null
for qd in 2 4 8 16; do
 fio --name=big --filename=$mnt/big$qd --size=2G --rw=write --bs=1M --direct=1 --ioengine=libaio --iodepth=$qd --refill_buffers --runtime=20 --time_based \
    --write_lat_log=$out/big$qd --log_avg_msec=0 \
    --name=small --filename=$mnt/small --size=64M --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=64 --rate_iops=10 --rate_process=poisson --runtime=20 --time_based --refill_buffers --startdelay=2 \
    --write_lat_log=$out/qd$qd --log_avg_msec=0 --output-format=json --output=$out/qd$qd.json
 rm -f $mnt/big$qd
done
