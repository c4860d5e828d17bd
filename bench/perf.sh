#!/usr/bin/env bash
# bench/perf.sh: kbox vs Apache kafka-producer/consumer-perf-test on a
# 1-broker test bed, run alternately (PAIRS pairs per row); prints a markdown
# table of medians and ratios (kbox/Apache). Client CPU seconds and peak RSS
# come from GNU time (-f "%U %S %M"); for Apache that is the whole JVM.
#
# Usage: bench/perf.sh [ROW...]     rows: p1k p10k c500 (default: all)
# Env:   RECORDS (default 300000; the issue's 1M does not fit this 2-core box
#        in the time budget), PAIRS (3), KBOX_BIN (default: go build),
#        KBOX_TESTBED_DIR (default /tmp/tb-perf-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
RECORDS=${RECORDS:-300000}
PAIRS=${PAIRS:-3}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-/tmp/tb-perf-bench}
tb="$here/test/integration/testbed.sh"
work=$(mktemp -d)
trap '"$tb" down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
if [[ -z "${KBOX_BIN:-}" ]]; then
  (cd "$here" && go build -o "$work/kbox" ./cmd/kbox)
  KBOX_BIN="$work/kbox"
fi
ln -s "$KBOX_BIN" "$work/kafka-producer-perf-test"
ln -s "$KBOX_BIN" "$work/kafka-consumer-perf-test"
eval "$("$tb" up | grep '^export')"
bs=$KAFKA_BOOTSTRAP
"$tb" apache kafka-topics --bootstrap-server "$bs" --create --topic bench --partitions 3 >/dev/null

# measure NAME CMD...: appends "rec/s MB/s p50 p99 cpu rss" to $work/NAME
measure() {
  local name=$1; shift
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  read -r u s m <"$work/time"
  local line; line=$(grep -E 'records sent, .* 99.9th|^[0-9]{4}-' "$work/out" | tail -1)
  python3 - "$line" "$u" "$s" "$m" >>"$work/$name" <<'PY'
import re, sys
line, u, s, m = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
if 'records sent' in line:
    n = re.findall(r'[-\d.]+|NaN|Infinity', line)
    rps, mbs, p50, p99 = float(n[1]), float(n[2]), float(n[5]), float(n[7])
else:
    f = [x.strip() for x in line.split(',')]
    rps, mbs, p50, p99 = float(f[9]), float(f[8]), float('nan'), float('nan')
print(rps, mbs, p50, p99, u + s, m / 1024)
PY
}

row() { # NAME DESC KBOX-CMD -- APACHE-CMD
  local name=$1 desc=$2; shift 2
  local k=() a=() sep=0
  for x in "$@"; do if [[ $x == -- ]]; then sep=1; elif ((sep)); then a+=("$x"); else k+=("$x"); fi; done
  for ((i = 0; i < PAIRS; i++)); do
    measure "$name.k" "${k[@]}"; measure "$name.a" "${a[@]}"
  done
  python3 - "$work/$name.k" "$work/$name.a" "$desc" <<'PY'
import sys, statistics as st, math
def load(p):
    rows = [list(map(float, l.split())) for l in open(p)]
    return [st.median(c) for c in zip(*rows)]
k, a, d = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
def f(v, p=1): return '–' if math.isnan(v) else f'{v:.{p}f}'
def r(x, y): return '–' if math.isnan(x) or math.isnan(y) or y == 0 else f'{x/y:.2f}'
print(f'| {d} | {f(k[0],0)} / {f(a[0],0)} ({r(k[0],a[0])}) | {f(k[1],2)} / {f(a[1],2)} | {f(k[2])} / {f(a[2])} | {f(k[3])} / {f(a[3])} | {f(k[4],2)} / {f(a[4],2)} ({r(k[4],a[4])}) | {f(k[5],0)} / {f(a[5],0)} ({r(k[5],a[5])}) |')
PY
}

echo "| row | records/s kbox / Apache (ratio) | MB/s | p50 ms | p99 ms | client CPU s (ratio) | peak RSS MiB (ratio) |"
echo "|---|---|---|---|---|---|---|"
rows=("$@"); [[ ${#rows[@]} -eq 0 ]] && rows=(p1k p10k c500)
P=(--topic bench --record-size 1024 --bootstrap-server "$bs")
for r in "${rows[@]}"; do
  case $r in
  p1k) row p1k "produce 1 KiB × $RECORDS, unthrottled" \
      "$work/kafka-producer-perf-test" "${P[@]}" --num-records "$RECORDS" --throughput -1 -- \
      "$tb" apache kafka-producer-perf-test "${P[@]}" --num-records "$RECORDS" --throughput -1 ;;
  p10k) n=$((RECORDS / 3)); row p10k "produce 1 KiB × $n at 10,000 rec/s" \
      "$work/kafka-producer-perf-test" "${P[@]}" --num-records "$n" --throughput 10000 -- \
      "$tb" apache kafka-producer-perf-test "${P[@]}" --num-records "$n" --throughput 10000 ;;
  c500) row c500 "consume $RECORDS × 1 KiB, max.poll.records 500" \
      "$work/kafka-consumer-perf-test" --topic bench --bootstrap-server "$bs" --num-records "$RECORDS" --command-property max.poll.records=500 -- \
      "$tb" apache kafka-consumer-perf-test --topic bench --bootstrap-server "$bs" --num-records "$RECORDS" --command-property max.poll.records=500 ;;
  *) echo "unknown row $r" >&2; exit 2 ;;
  esac
done
