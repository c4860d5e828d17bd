#!/usr/bin/env bash
# bench/logdirs.sh: kafka-log-dirs --describe, kbox vs Apache, on a cluster
# with many partitions. Prints medians of wall time, CPU (user+sys) and peak
# RSS over RUNS runs, and the ratios, as a Markdown table.
#
# Environment:
#   PARTITIONS  partitions in the cluster (default 10000; the issue's target)
#   TOPICS      topics they are spread over (default 10)
#   BROKERS     brokers (default 1)
#   RUNS        runs per tool (default 5)
#   KBOX_BIN    kbox binary (default: go build into a temp dir)
#   KBOX_TESTBED_DIR  test-bed state dir (default /tmp/tb-logdirs-bench)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PARTITIONS=${PARTITIONS:-10000}
TOPICS=${TOPICS:-10}
BROKERS=${BROKERS:-1}
RUNS=${RUNS:-5}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-/tmp/tb-logdirs-bench}
TB="$ROOT/test/integration/testbed.sh"
WORK=$(mktemp -d)
cleanup() { "$TB" down >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT

if [[ -z "${KBOX_BIN:-}" ]]; then
  KBOX_BIN="$WORK/kbox"
  (cd "$ROOT" && go build -o "$KBOX_BIN" ./cmd/kbox)
fi
mkdir -p "$WORK/bin"
ln -s "$KBOX_BIN" "$WORK/bin/kafka-log-dirs"

eval "$("$TB" up --brokers "$BROKERS")"
BS=$KAFKA_BOOTSTRAP
per=$((PARTITIONS / TOPICS))
echo "creating $TOPICS topics x $per partitions on $BROKERS broker(s)" >&2
for i in $(seq 1 "$TOPICS"); do
  "$TB" apache kafka-topics --bootstrap-server "$BS" --create --topic "bench-$i" \
    --partitions "$per" --replication-factor 1 >/dev/null
done
"$TB" apache kafka-producer-perf-test --topic bench-1 --num-records 20000 --record-size 100 \
  --throughput -1 --producer-props bootstrap.servers="$BS" >/dev/null
# Wait until every partition is reported.
for _ in $(seq 1 120); do
  n=$("$KBOX_BIN" log-dirs --bootstrap-server "$BS" --aggregate-into broker -o json |
    grep -o '"partitions": *[0-9]*' | awk -F: '{s+=$2} END {print s+0}')
  [[ "$n" -ge "$PARTITIONS" ]] && break
  sleep 1
done
echo "cluster reports $n partition replicas" >&2

# measure NAME CMD...: one line "wall cpu rss_kb" per run into $WORK/NAME
measure() {
  local name=$1; shift
  : >"$WORK/$name"
  for _ in $(seq 1 "$RUNS"); do
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/t" "$@" >"$WORK/out" 2>"$WORK/err" || {
      echo "$name failed:" >&2; cat "$WORK/err" >&2; exit 1; }
    awk '{printf "%.3f %.3f %d\n", $1, $2+$3, $4}' "$WORK/t" >>"$WORK/$name"
  done
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; print m}'; }
col() { awk -v c="$2" '{print $c}' "$WORK/$1" | median; }

measure apache "$TB" apache kafka-log-dirs --bootstrap-server "$BS" --describe
measure kbox "$WORK/bin/kafka-log-dirs" --bootstrap-server "$BS" --describe
measure native "$KBOX_BIN" log-dirs --bootstrap-server "$BS" --aggregate-into replica -o table

aw=$(col apache 1) ac=$(col apache 2) ar=$(col apache 3)
echo
echo "kafka-log-dirs --describe, $PARTITIONS partitions, $BROKERS broker(s), median of $RUNS runs"
echo
echo "| tool | wall s | CPU s | peak RSS MiB | wall ratio (Apache/x) | CPU ratio |"
echo "|---|---|---|---|---|---|"
for t in apache kbox native; do
  w=$(col $t 1) c=$(col $t 2) r=$(col $t 3)
  label=$t
  [[ $t == apache ]] && label="Apache 4.4.0 kafka-log-dirs"
  [[ $t == kbox ]] && label="kbox kafka-log-dirs (drop-in)"
  [[ $t == native ]] && label="kbox log-dirs --aggregate-into replica (table)"
  awk -v l="$label" -v w="$w" -v c="$c" -v r="$r" -v aw="$aw" -v ac="$ac" \
    'BEGIN {printf "| %s | %.3f | %.3f | %.1f | %.1fx | %.1fx |\n", l, w, c, r/1024, aw/w, (c>0?ac/c:0)}'
done
