#!/usr/bin/env bash
# ui.sh: `kbox ui`'s topic page with a 10,000-partition topic, on a kbox
# playground (kfake) and on a real 3-broker cluster at once: time to
# first byte and CPU of the kbox ui process per refresh (the page's API
# call: the topic described with offsets and replica sizes, its configs,
# partitions paged 100 at a time), medians of RUNS batches of BATCH
# refreshes; a refresh after the rate interval (the cached log dirs and
# offsets expired); the static page; the topic list; the live-rate sampler's
# time and CPU per sample; and the binary's size with and without the
# dashboard. Not part of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/ui.sh
#
# Environment: PARTITIONS (10000), RECORDS produced into the topic of
# each cluster (200000), RUNS (5), BATCH (10), REAL=0 skips the real
# cluster, BROKERS of the real cluster (3), RF the topic's replication
# factor there (1), KBOX_TESTBED_DIR (a fresh state dir).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
parts=${PARTITIONS:-10000}
records=${RECORDS:-200000}
runs=${RUNS:-5}
batch=${BATCH:-10}
real=${REAL:-1}
brokers=${BROKERS:-3}
rf=${RF:-1}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-ui.XXXXXX)}
dir=$KBOX_TESTBED_DIR
mkdir -p "$dir"
cfg=$dir/config.yaml
export KBOX_CONFIG=$cfg KBOX_PROFILE= KBOX_OUTPUT=
tck=$(getconf CLK_TCK)

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ "$real" = 1 ] && "$tb" down >/dev/null 2>&1 || true
}
trap cleanup EXIT

# wait_for FILE PATTERN: up to 120 s for a line in a background process's output.
wait_for() {
  for _ in $(seq 1 240); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.5
  done
  echo "no '$2' in $1:" >&2; cat "$1" >&2; exit 1
}

"$kbox" playground --brokers 1 --topic "big:$parts" >"$dir/pg.out" 2>&1 &
pids+=($!)
wait_for "$dir/pg.out" '^Serving until'
pgbs=$(awk '/^Bootstrap:/ {print $2}' "$dir/pg.out")
clusters=(playground)
profiles="  playground:\n    bootstrap-servers: $pgbs\n"
if [ "$real" = 1 ]; then
  eval "$("$tb" up --brokers "$brokers")"
  # The controller refuses more than 10,000 records in one batch (a topic
  # and its partitions): create half, then add the rest.
  "$kbox" kafka-topics --bootstrap-server "$KAFKA_BOOTSTRAP" --create --topic big \
    --partitions "$((parts / 2))" --replication-factor "$rf" >&2
  # The new topic reaches every broker's metadata a while after the
  # create returns (seconds, at 5,000 partitions on a loaded machine).
  for i in $(seq 1 60); do
    "$kbox" kafka-topics --bootstrap-server "$KAFKA_BOOTSTRAP" --alter --topic big --partitions "$parts" >&2 && break
    [ "$i" -lt 60 ] || exit 1
    sleep 2
  done
  # Creating 10,000 partitions takes the broker a while: wait until every
  # partition has a leader.
  for _ in $(seq 1 120); do
    n=$("$kbox" kafka-topics --bootstrap-server "$KAFKA_BOOTSTRAP" --describe --topic big 2>/dev/null | grep -c 'Leader: [0-9]' || true)
    [ "$n" -eq "$parts" ] && break
    sleep 2
  done
  [ "$n" -eq "$parts" ] || { echo "big has $n of $parts partitions with a leader" >&2; exit 1; }
  clusters+=(real)
  profiles+="  real:\n    bootstrap-servers: $KAFKA_BOOTSTRAP\n"
fi
printf "profiles:\n$profiles" >"$cfg"
for c in "${clusters[@]}"; do
  "$kbox" --profile "$c" kafka-producer-perf-test --topic big --num-records "$records" --record-size 100 \
    --throughput -1 --producer-props acks=1 linger.ms=5 | tail -1 >&2
done

"$kbox" ui --listen 127.0.0.1:0 --interval 3s >"$dir/ui.out" 2>"$dir/ui.err" &
uipid=$!
pids+=($uipid)
wait_for "$dir/ui.out" '^http://'
# The printed URL carries the access token: every request sends it.
printed=$(head -1 "$dir/ui.out")
url=${printed%%\?*}
auth=(-H "Authorization: Bearer ${printed#*token=}")

cpu() { awk '{print $14 + $15}' "/proc/$uipid/stat"; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

nmeasure=0
# measure NAME PATH: median TTFB and total time (ms) of one request, the
# median CPU (ms) of the ui process per request over batches, the size.
measure() {
  local name=$1 u="$url${2#/}" ttfb=$dir/m$((++nmeasure)).ttfb cpus=$dir/m$nmeasure.cpu
  : >"$ttfb"; : >"$cpus"
  curl -s "${auth[@]}" -o /dev/null "$u"; curl -s "${auth[@]}" -o /dev/null "$u"
  for _ in $(seq 1 "$runs"); do
    local c0; c0=$(cpu)
    for _ in $(seq 1 "$batch"); do
      curl -s "${auth[@]}" -o /dev/null -w '%{time_starttransfer} %{time_total} %{http_code}\n' "$u" >>"$ttfb"
    done
    echo "$(( ($(cpu) - c0) * 1000 / tck ))" | awk -v b="$batch" '{print $1 / b}' >>"$cpus"
  done
  local size; size=$(curl -s "${auth[@]}" "$u" | wc -c)
  printf '%-36s ttfb %7.1f ms  total %7.1f ms  cpu/refresh %6.1f ms  %8d bytes%s\n' "$name" \
    "$(awk '{print $1 * 1000}' "$ttfb" | median)" "$(awk '{print $2 * 1000}' "$ttfb" | median)" "$(median <"$cpus")" "$size" "$(failures "$ttfb")"
}

# failures FILE: ", N of M answers not 200" when some failed.
failures() { awk '$3 != 200 {n++} END {if (n) printf ", %d of %d answers not 200", n, NR}' "$1"; }

# measure_cold NAME PATH: as measure, one request per run, each after
# the rate interval (3 s) has passed since the last: the log dirs and
# offsets the dashboard caches for that long have expired.
measure_cold() {
  local name=$1 u="$url${2#/}" ttfb=$dir/m$((++nmeasure)).ttfb cpus=$dir/m$nmeasure.cpu
  : >"$ttfb"; : >"$cpus"
  for _ in $(seq 1 "$runs"); do
    sleep 3.5
    local c0; c0=$(cpu)
    curl -s "${auth[@]}" -o /dev/null -w '%{time_starttransfer} %{time_total} %{http_code}\n' "$u" >>"$ttfb"
    echo "$(( ($(cpu) - c0) * 1000 / tck ))" >>"$cpus"
  done
  printf '%-36s ttfb %7.1f ms  total %7.1f ms  cpu/refresh %6.1f ms%s\n' "$name" \
    "$(awk '{print $1 * 1000}' "$ttfb" | median)" "$(awk '{print $2 * 1000}' "$ttfb" | median)" "$(median <"$cpus")" "$(failures "$ttfb")"
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $parts partitions, $records records per cluster; real cluster: $brokers broker(s), replication factor $rf; medians of $runs batches of $batch" >&2
measure "static page (/)" /
measure "app.js" /app.js
for c in "${clusters[@]}"; do
  measure "$c topic page, first 100" "/api/c/$c/topics/big?offset=0&limit=100"
  measure "$c topic page, last 100" "/api/c/$c/topics/big?offset=$((parts - 100))&limit=100"
  measure_cold "$c topic page, interval past" "/api/c/$c/topics/big?offset=0&limit=100"
  measure "$c topic list" "/api/c/$c/topics"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (after the page measurements)" >&2

# The live-rate sampler: CPU of the ui process over 10 intervals of 3 s
# while the rates page is open, per sample.
for c in "${clusters[@]}"; do
  curl -sf "${auth[@]}" -o /dev/null "${url}api/c/$c/rates"
done
sleep 7
c0=$(cpu)
for _ in $(seq 1 10); do
  sleep 3
  for c in "${clusters[@]}"; do curl -sf "${auth[@]}" -o /dev/null "${url}api/c/$c/rates"; done
done
c1=$(cpu)
for c in "${clusters[@]}"; do
  echo "$c rate sample: $(curl -sf "${auth[@]}" "${url}api/c/$c/rates" | sed -n 's/.*"sample_ms":\([0-9]*\).*/\1/p') ms"
done
echo "rate sampling, all clusters: $(( (c1 - c0) * 1000 / tck / 10 )) ms CPU per 3 s interval"

# Binary size with and without the dashboard: the same tree with the ui
# applet taken out of the registry (the linker then drops pkg/dashboard
# and its embedded files).
tmp=$(mktemp -d)
git -C "$root" archive HEAD | tar -x -C "$tmp"
sed -i -e '/"github.com\/kboxdev\/kbox\/cmd\/ui"/d' -e '/^\tui\.Applet,$/d' "$tmp/cmd/app/applets.go"
(cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/kbox-with" ./cmd/kbox)
(cd "$tmp" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/kbox-without" ./cmd/kbox)
with=$(stat -c %s "$tmp/kbox-with"); without=$(stat -c %s "$tmp/kbox-without")
echo "binary: $with bytes with the dashboard, $without without: +$((with - without)) bytes ($(awk -v a="$with" -v b="$without" 'BEGIN {printf "%.2f", (a - b) * 100 / b}') %)"
echo "static files embedded: $(cat "$root"/pkg/dashboard/static/* | wc -c) bytes"
rm -rf "$tmp"
