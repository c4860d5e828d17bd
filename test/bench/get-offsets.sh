#!/usr/bin/env bash
# get-offsets.sh: kafka-get-offsets over 10,000 partitions (issue 29), kbox
# against Apache's GetOffsetShell (4.4.0) on one 1-broker test bed: wall
# time, CPU (user+sys) and peak RSS of the client, medians of REPEAT runs
# each, run alternately, for the latest offsets (--time -1) and the offsets
# of a timestamp (--time T: a ListOffsets by time on every partition). The
# outputs of both tools must be the same lines (Apache prints them sorted
# by topic and partition too). Not part of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/get-offsets.sh
#
# Environment: TOPICS (10), PARTITIONS per topic (1000), RECORDS in all
# (100000, 100 bytes each, spread over the partitions), REPEAT (3),
# KBOX_TESTBED_DIR (a fresh state dir).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
topics=${TOPICS:-10}
parts=${PARTITIONS:-1000}
records=${RECORDS:-100000}
repeat=${REPEAT:-3}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-getoffsets.XXXXXX)}
export KBOX_CONFIG=$KBOX_TESTBED_DIR/none.yaml KBOX_PROFILE= KBOX_OUTPUT=
dir=$KBOX_TESTBED_DIR

trap '"$tb" down >/dev/null 2>&1 || true' EXIT
eval "$("$tb" up --brokers 1)"
bs=$KAFKA_BOOTSTRAP

total=$((topics * parts))
for t in $(seq 1 "$topics"); do
  "$kbox" kafka-topics --bootstrap-server "$bs" --create --topic "go-$t" \
    --partitions "$parts" --replication-factor 1 >/dev/null
done
# Every partition has a leader before the first run.
for _ in $(seq 1 120); do
  n=$("$kbox" kafka-topics --bootstrap-server "$bs" --describe --topic 'go-.*' 2>/dev/null | grep -c 'Leader: [0-9]' || true)
  [ "$n" -eq "$total" ] && break
  sleep 2
done
[ "$n" -eq "$total" ] || { echo "$n of $total partitions have a leader" >&2; exit 1; }
for t in $(seq 1 "$topics"); do
  "$kbox" kafka-producer-perf-test --bootstrap-server "$bs" --topic "go-$t" \
    --num-records $((records / topics)) --record-size 100 --throughput -1 \
    --producer-props acks=1 linger.ms=5 >/dev/null
done
ts=$(( $(date +%s) * 1000 - 3600000 ))
echo "partitions: $total, records: $records, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# measure TOOL TIME → "wall cpu rss_kib"; the output goes to $dir/TOOL.TIME.out
measure() {
  local out=$dir/$1.$2.out cmd
  case $1 in
    apache) cmd=("$tb" apache kafka-get-offsets) ;;
    kbox) cmd=("$kbox" kafka-get-offsets) ;;
  esac
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "${cmd[@]}" --bootstrap-server "$bs" \
    --topic 'go-.*' --time "$2" >"$out" 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  # Every partition has a latest offset; a timestamp finds an offset only
  # in the partitions that hold a record at or after it (both tools print
  # nothing for the others).
  if [ "$2" = -1 ]; then
    [ "$(wc -l <"$out")" -eq "$total" ] || { echo "$1 --time $2: $(wc -l <"$out") lines, want $total" >&2; exit 1; }
  else
    [ -s "$out" ] || { echo "$1 --time $2: no offsets" >&2; exit 1; }
  fi
  tail -1 "$dir/time" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}'
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

declare -A wall cpu rss
for i in $(seq 1 "$repeat"); do
  for time in -1 "$ts"; do
    for tool in apache kbox; do
      read -r w c r < <(measure "$tool" "$time")
      k="$tool $time"
      wall[$k]+="$w "; cpu[$k]+="$c "; rss[$k]+="$r "
      echo "run $i $tool --time $time: wall ${w}s cpu ${c}s rss ${r}KiB load $(cut -d' ' -f1 /proc/loadavg)" >&2
    done
    cmp -s "$dir/apache.$time.out" "$dir/kbox.$time.out" || { echo "--time $time: outputs differ" >&2; diff "$dir/apache.$time.out" "$dir/kbox.$time.out" | head >&2; exit 1; }
  done
done
echo "outputs identical in every run ($(wc -l <"$dir/kbox.-1.out") and $(wc -l <"$dir/kbox.$ts.out") lines)" >&2

printf '| --time | tool | wall s | CPU s | peak RSS MiB |\n|---|---|---|---|---|\n'
for time in -1 "$ts"; do
  for tool in apache kbox; do
    k="$tool $time"
    w=$(tr ' ' '\n' <<<"${wall[$k]}" | grep . | median)
    c=$(tr ' ' '\n' <<<"${cpu[$k]}" | grep . | median)
    r=$(tr ' ' '\n' <<<"${rss[$k]}" | grep . | median)
    label=$time; [ "$time" = -1 ] || label="timestamp"
    printf '| %s | %s | %s | %s | %d |\n' "$label" "$tool" "$w" "$c" $((r / 1024))
  done
done
