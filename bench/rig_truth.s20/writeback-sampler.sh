#!/bin/bash
# Session 20: the loop device's requests in flight and /proc/meminfo Dirty, Writeback,
# WritebackTmp every ~10 ms while the reference recorder runs on a fresh rig (1 MiB ring).
# As root: DUR=75s bench/rig_truth.s20/writeback-sampler.sh RIG RATE OUTPREFIX
# Columns of OUTPREFIX.samples: time, in flight, Dirty, Writeback, WritebackTmp (KiB).
rig=$1 rate=$2 out=$3
cd "$(dirname "$0")/../.." || exit 2
d=$(mktemp -d /tmp/sd-wb-rig.XXXXXX)
mnt=$(tests/rig/rig.sh up $rig $d) || exit 1
trap "tests/rig/rig.sh down $d" EXIT
loop=$(losetup -j $d/nbd/disk | cut -d: -f1); b=$(basename $loop)
losetup --list -O NAME,DIO,LOG-SEC $loop > $out.losetup
( t0=$(date +%s.%N); while [ ! -e $out.stop ]; do
  now=$(date +%s.%N); read -r _ _ _ _ _ _ _ _ inf _ < /sys/block/$b/stat
  awk -v t=$now -v i=$inf '/^Writeback:|^WritebackTmp:|^Dirty:/{v=v" "$2} END{print t, i, v}' /proc/meminfo
  sleep 0.01; done > $out.samples ) &
rm -f $out.stop
tests/rig/refrec.sh $mnt/rec.raw --rate $rate --buffer 1MiB --duration ${DUR:-30s} > $out.refrec.json 2>$out.refrec.err
touch $out.stop; wait
