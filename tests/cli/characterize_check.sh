#!/usr/bin/env bash
# characterize's last phase holds the headline against the target itself (the
# recorder's writes paced at the headline's rate), here models in virtual time:
#   - a stick whose answer the model gets right: the check runs and is clean;
#   - the same stick with a 300 MB write cache that recovers at 0.5 MB/s and no
#     page cache, for a 20 s recording: the headline rides the cache, which the
#     measurement has used up by the time of the check, so the writes fall
#     behind; the profile falls behind there too, so no verdict on the headline
#     (fell_behind false, cache_used_up true), and the text says why.
. "$(dirname "$0")/../lib.sh"

j=$("$STREAMDISK" characterize -p rpi4-buster+ext4+sandisk-ultrafit-16g --json 2>/dev/null) || fail "characterize failed"
[ "$(jq -r '.headline.check.ran' <<<"$j")" = true ] || fail "the check did not run: $(jq -c '.headline.check' <<<"$j")"
[ "$(jq -r '.headline.check.fell_behind' <<<"$j")" = false ] || fail "a right headline failed its check: $(jq -c '.headline.check' <<<"$j")"
[ "$(jq -r '.headline.check.cache_used_up' <<<"$j")" = false ] || fail "cache_used_up without a cache"
rate=$(jq -r '.headline.check.rate_bytes_per_s' <<<"$j") head=$(jq -r '.headline.data_rate_bytes_per_s' <<<"$j")
[ "$rate" = "$head" ] || fail "the check ran at $rate B/s, the headline is $head B/s"
[ "$(jq '[.phases[] | select(.name == "check")] | length' <<<"$j")" = 1 ] || fail "no check phase in the table"
secs=$(jq -r '.headline.check.seconds' <<<"$j")
awk -v s="$secs" 'BEGIN { exit !(s >= 10 && s <= 13) }' || fail "the check took $secs s (a twentieth of 4 min: 12 s)"

# --check sets its length (from the budget); 0 skips it.
j=$("$STREAMDISK" characterize -p rpi4-buster+ext4+sandisk-ultrafit-16g --check 30s --json 2>/dev/null) || fail "--check 30s failed"
secs=$(jq -r '.headline.check.seconds' <<<"$j")
awk -v s="$secs" 'BEGIN { exit !(s >= 29 && s <= 31) }' || fail "--check 30s ran $secs s"
[ "$(jq -r '.seconds' <<<"$j" | cut -d. -f1)" -le 240 ] || fail "--check 30s went over the 4 min budget: $(jq -r .seconds <<<"$j") s"
j=$("$STREAMDISK" characterize -p rpi4-buster+ext4+sandisk-ultrafit-16g --check 0 --json 2>/dev/null) || fail "--check 0 failed"
[ "$(jq -r '.headline.check.ran' <<<"$j")" = false ] || fail "--check 0 still checked"
[ "$(jq -r '.headline.check.text' <<<"$j")" = "not run (--check 0)" ] || fail "--check 0: $(jq -c .headline.check <<<"$j")"
[ "$(jq '[.phases[] | select(.name == "check")] | length' <<<"$j")" = 0 ] || fail "--check 0 left a check phase"

j=$("$STREAMDISK" characterize -p rpi4-buster+ext4+sandisk-ultrafit-16g --set device.burst_bytes=300MB \
      --set device.burst_mbps=60 --set device.recover_mbps=0.5 --set host.dirty_limit_bytes=0 -d 20s --json 2>/dev/null) \
  || fail "characterize (cache) failed"
c=$(jq -c '.headline.check' <<<"$j")
[ "$(jq -r '.ran' <<<"$c")" = true ] || fail "the check did not run: $c"
[ "$(jq -r '.cache_used_up' <<<"$c")" = true ] || fail "the used-up cache was not recognised: $c"
[ "$(jq -r '.fell_behind' <<<"$c")" = false ] || fail "a cache's lag was taken for an optimistic headline: $c"
awk -v l="$(jq -r '.max_lag_s' <<<"$c")" 'BEGIN { exit !(l > 0.05) }' || fail "the writes did not fall behind: $c"
jq -r '.text' <<<"$c" | grep -q "not a verdict on the headline" || fail "the text does not say why: $c"
jq -r '.notes[]' <<<"$j" | grep -q "failed its check" && fail "a note calls the headline optimistic: $(jq -c .notes <<<"$j")"
finish
