#!/usr/bin/env bash
# The measure -> predict flow against the model itself (bench/self_consistency.sh):
# on the synthetic kernel-filesystem stacks, `characterize -p` in virtual time then
# `capacity` on the fitted profile gives the stack's own answer within ±10 % at both
# ring sizes. The two userspace stacks are known misses, left out here and shown in
# bench/rig_truth.md ("session 11"): the model's page cache holds a writer for whole
# writeback chunks, which the pause fit takes for pauses. Virtual time: seconds.
. "$(dirname "$0")/../lib.sh"
command -v jq >/dev/null || skip "jq is not installed"
out=$(STREAMDISK="$STREAMDISK" "$SD_SOURCE_DIR/bench/self_consistency.sh" \
  --stacks "kernel-pauses kernel-cliff kernel-bigcache stick-nojournal") || fail "self_consistency.sh exit $?"
echo "$out"
rows=$(grep -c '^| [a-z-]* | [0-9]MiB |' <<<"$out")
[ "$rows" -eq 8 ] || fail "expected 8 rows, got $rows"
grep -q '^8 of 8 rows within ±10 %' <<<"$out" || fail "a kernel stack's fitted profile misses its own answer by more than 10 %"
finish
