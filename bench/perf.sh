#!/usr/bin/env bash
# bench/perf.sh: kbox vs Apache kafka-producer/consumer-perf-test on a
# 1-broker test bed, run alternately (PAIRS pairs per row); prints a markdown
# table of medians and ratios (kbox/Apache). Client CPU seconds and peak RSS
# come from GNU time (-f "%U %S %M"); for Apache that is the whole JVM.
#
# Usage: bench/perf.sh [ROW...]     (default: all rows)
# Rows:  p1k p10k                     unthrottled / 10,000 rec/s, 1 KiB
#        bs4k-l0 bs4k-l50 bs16k-l0 bs16k-l50 bs32k-l0 bs32k-l50
#                                     batch.size 4/16/32 KiB x linger.ms 0/50
#        comp-none comp-gzip comp-snappy comp-lz4 comp-zstd   compression.type
#        acks-0 acks-1 acks-all       acks
#        c500 c2000                   consumer, max.poll.records 500 / 2000
#        f50 f100                     consumer, fetch.max.bytes 50 / 100 MiB
# Producer rows other than p10k are unthrottled, 1 KiB records. Consumer rows
# read RECORDS records; the topic is filled once (by kbox) if it has fewer.
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

# prow NAME DESC PROP=VALUE...: an unthrottled 1 KiB producer row with the
# given client properties (--command-property, the 4.4 name).
prow() {
  local name=$1 desc=$2; shift 2
  row "$name" "produce 1 KiB × $RECORDS, $desc" \
    "$work/kafka-producer-perf-test" "${P[@]}" --num-records "$RECORDS" --throughput -1 --command-property "$@" -- \
    "$tb" apache kafka-producer-perf-test "${P[@]}" --num-records "$RECORDS" --throughput -1 --command-property "$@"
}
# crow NAME DESC PROP=VALUE...: a consumer row reading RECORDS records.
crow() {
  local name=$1 desc=$2; shift 2
  row "$name" "consume $RECORDS × 1 KiB, $desc" \
    "$work/kafka-consumer-perf-test" --topic bench --bootstrap-server "$bs" --num-records "$RECORDS" --command-property "$@" -- \
    "$tb" apache kafka-consumer-perf-test --topic bench --bootstrap-server "$bs" --num-records "$RECORDS" --command-property "$@"
}

echo "| row | records/s kbox / Apache (ratio) | MB/s | p50 ms | p99 ms | client CPU s (ratio) | peak RSS MiB (ratio) |"
echo "|---|---|---|---|---|---|---|"
rows=("$@"); [[ ${#rows[@]} -eq 0 ]] && rows=(p1k p10k bs4k-l0 bs4k-l50 bs16k-l0 bs16k-l50 bs32k-l0 bs32k-l50
  comp-none comp-gzip comp-snappy comp-lz4 comp-zstd acks-0 acks-1 acks-all c500 c2000 f50 f100)
P=(--topic bench --record-size 1024 --bootstrap-server "$bs")
for r in "${rows[@]}"; do
  if [[ $r =~ ^(c500|c2000|f50|f100)$ && ! -e $work/filled ]]; then
    have=$( ("$tb" apache kafka-get-offsets --bootstrap-server "$bs" --topic bench 2>/dev/null || true) | awk -F: '{s += $3} END {print s + 0}')
    if ((have < RECORDS)); then
      "$work/kafka-producer-perf-test" "${P[@]}" --num-records $((RECORDS - have)) --throughput -1 >/dev/null
    fi
    touch "$work/filled"
  fi
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
  bs*-l*) b=${r#bs}; b=${b%%-*}; l=${r##*-l}
      prow "$r" "batch.size ${b%k} KiB, linger.ms $l" batch.size=$((${b%k} * 1024)) linger.ms="$l" ;;
  comp-*) prow "$r" "compression.type ${r#comp-}" compression.type="${r#comp-}" ;;
  acks-*) prow "$r" "acks ${r#acks-}" acks="${r#acks-}" ;;
  c2000) crow c2000 "max.poll.records 2000" max.poll.records=2000 ;;
  f50) crow f50 "fetch.max.bytes 50 MiB" fetch.max.bytes=52428800 ;;
  f100) crow f100 "fetch.max.bytes 100 MiB" fetch.max.bytes=104857600 ;;
  *) echo "unknown row $r" >&2; exit 2 ;;
  esac
done
