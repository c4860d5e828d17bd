#!/usr/bin/env bash
# dump-log.sh: kafka-dump-log over one large segment a broker wrote, kbox
# against the Apache tool (4.4.0): MB/s (segment size / wall time) and peak
# RSS, medians of REPEAT runs each, run alternately, stdout to /dev/null.
# Two modes: batches only (the default), and --print-data-log (every record
# decoded and printed). Not part of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/dump-log.sh
#
# Environment: MIB (1024: the segment's size in MiB, 1 KiB records), REPEAT
# (3), KBOX_TESTBED_DIR (a fresh state dir).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
mib=${MIB:-1024}
repeat=${REPEAT:-3}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-dumplog.XXXXXX)}
export KBOX_CONFIG=$KBOX_TESTBED_DIR/none.yaml KBOX_PROFILE= KBOX_OUTPUT=

trap '"$tb" down >/dev/null 2>&1 || true' EXIT
eval "$(KBOX_TESTBED_SERVER_PROPS='log.segment.bytes=2147483647' "$tb" up --brokers 1)"
bs=$KAFKA_BOOTSTRAP
"$kbox" kafka-topics --bootstrap-server "$bs" --create --topic bench --partitions 1 --replication-factor 1 >/dev/null
"$kbox" kafka-producer-perf-test --topic bench --num-records $((mib * 1024)) --record-size 1024 --throughput -1 \
  --producer-props bootstrap.servers="$bs" batch.size=65536 linger.ms=5 >/dev/null
seg=$KBOX_TESTBED_DIR/n1/data/bench-0/00000000000000000000.log
size=$(stat -c %s "$seg")
echo "segment: $seg, $size bytes" >&2
"$tb" stop-broker 1 >/dev/null # the files stay; nothing writes to them now

measure() { # tool mode → "wall rss_kib" of one run
  local out
  out=$(mktemp)
  local args=(--files "$seg")
  [[ $2 == records ]] && args+=(--print-data-log)
  case $1 in
    kbox) /usr/bin/time -f '%e %M' -o "$out" "$kbox" kafka-dump-log "${args[@]}" >/dev/null ;;
    apache) /usr/bin/time -f '%e %M' -o "$out" "$tb" apache kafka-dump-log "${args[@]}" >/dev/null ;;
  esac
  cat "$out"
  rm -f "$out"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '| mode | tool | MB/s (median) | wall s (median) | peak RSS MiB (median) |\n|---|---|---|---|---|\n'
for mode in batches records; do
  declare -A wall=() rss=()
  for i in $(seq 1 "$repeat"); do
    for tool in kbox apache; do
      read -r w r < <(measure "$tool" "$mode")
      wall[$tool]+="$w "
      rss[$tool]+="$r "
      echo "run $i $mode $tool: wall ${w}s rss ${r}KiB" >&2
    done
  done
  for tool in kbox apache; do
    w=$(tr ' ' '\n' <<<"${wall[$tool]}" | grep . | median)
    r=$(tr ' ' '\n' <<<"${rss[$tool]}" | grep . | median)
    awk -v m="$mode" -v t="$tool" -v s="$size" -v w="$w" -v r="$r" \
      'BEGIN {printf "| %s | %s | %.0f | %.1f | %.0f |\n", m, t, s / 1e6 / w, w, r / 1024}'
  done
done
rm -rf "$KBOX_TESTBED_DIR"
