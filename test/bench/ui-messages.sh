#!/usr/bin/env bash
# ui-messages.sh: `kbox ui`'s Messages page on a topic of 1M small records
# on the test bed (one broker): time to first byte and full response of
# the first page (GET /api/c/bed/topics/msgs/messages, 50 records, as the
# page asks), medians of RUNS requests, from the newest (the default),
# from the oldest, at a time in the middle, and a filtered page (a value
# text no record has: the scan bound, 10,000 records, is what it reads).
# Not part of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/ui-messages.sh     (make bench-ui-messages)
#
# Environment: RECORDS (1000000), SIZE the value size (100), PARTITIONS
# (6), RUNS (21), KBOX_TESTBED_DIR (a fresh state dir).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
records=${RECORDS:-1000000}
size=${SIZE:-100}
parts=${PARTITIONS:-6}
runs=${RUNS:-21}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-ui-messages.XXXXXX)}
dir=$KBOX_TESTBED_DIR
mkdir -p "$dir"
export KBOX_CONFIG=$dir/config.yaml KBOX_PROFILE= KBOX_OUTPUT=

uipid=
cleanup() {
  if [ -n "$uipid" ]; then kill -TERM "$uipid" 2>/dev/null || true; wait "$uipid" 2>/dev/null || true; fi
  "$tb" down >/dev/null 2>&1 || true
}
trap cleanup EXIT

eval "$("$tb" up --brokers 1)"
printf 'profiles:\n  bed:\n    bootstrap-servers: %s\n' "$KAFKA_BOOTSTRAP" >"$KBOX_CONFIG"
"$kbox" --profile bed kafka-topics --create --topic msgs --partitions "$parts" --replication-factor 1 >&2
t0=$(date +%s%3N)
"$kbox" --profile bed perf produce --topic msgs --records "$records" --record-size "$size" --acks 1 >&2
t1=$(date +%s%3N)
"$kbox" --profile bed kafka-get-offsets --topic msgs | awk -F: '{n += $3} END {print "msgs holds " n " records"}' >&2

"$kbox" --profile bed ui --listen 127.0.0.1:0 >"$dir/ui.out" 2>"$dir/ui.err" &
uipid=$!
for _ in $(seq 1 240); do grep -q '^http://' "$dir/ui.out" 2>/dev/null && break; sleep 0.5; done
printed=$(head -1 "$dir/ui.out")
url=${printed%%\?*}
auth=(-H "Authorization: Bearer ${printed#*token=}")

median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# measure NAME QUERY: median TTFB and total (ms) of RUNS requests of the
# page (after one warm-up request), its record count and size.
measure() {
  local name=$1 u="${url}api/c/bed/topics/msgs/messages$2" out=$dir/m.$RANDOM
  curl -s "${auth[@]}" -o /dev/null "$u"
  for _ in $(seq 1 "$runs"); do
    curl -s "${auth[@]}" -o /dev/null -w '%{time_starttransfer} %{time_total} %{http_code}\n' "$u" >>"$out"
  done
  local body; body=$(curl -s "${auth[@]}" "$u")
  printf '%-34s ttfb %6.1f ms  total %6.1f ms  %3s records  scanned %6s  %7d bytes%s\n' "$name" \
    "$(awk '{print $1 * 1000}' "$out" | median)" "$(awk '{print $2 * 1000}' "$out" | median)" \
    "$(grep -o '"partition":[0-9]*,"offset"' <<<"$body" | wc -l)" "$(sed -n 's/.*"scanned":\([0-9]*\).*/\1/p' <<<"$body")" "${#body}" \
    "$(awk '$3 != 200 {n++} END {if (n) printf ", %d of %d answers not 200", n, NR}' "$out")"
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $records records of $size bytes in $parts partitions (filled in $(( (t1 - t0) / 1000 )) s); medians of $runs requests" >&2
mid=$(( (t0 + t1) / 2 ))
measure "first page, newest (default)" ""
measure "first page, oldest" "?start=oldest"
measure "first page, at a time mid-topic" "?start=timestamp&timestamp_ms=$mid"
measure "first page, partition 0 newest" "?partitions=0"
measure "filtered, no match (scan 10,000)" "?value=no-such-text"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (after)" >&2
