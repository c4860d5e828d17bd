#!/usr/bin/env bash
# reassign.sh: kafka-reassign-partitions --generate and --verify over 10,000
# partitions, kbox against the Apache tool (4.4.0): wall time, CPU
# (user+sys, the whole JVM for Apache) and peak RSS of the client, medians
# of REPEAT runs each, run alternately. Not part of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/reassign.sh
#
# Environment: TOPICS (10), PARTITIONS per topic (1000), REPEAT (3),
# KBOX_TESTBED_DIR (a fresh state dir). One broker: --generate proposes
# every partition on broker 1 (deterministic, so the outputs are compared),
# and --verify reads a plan of every partition on its current replica, i.e.
# a reassignment that has completed (no data moves; --verify then clears
# the throttles of every topic, as it does after a real move).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
topics=${TOPICS:-10}
parts=${PARTITIONS:-1000}
repeat=${REPEAT:-3}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-reassign.XXXXXX)}
export KBOX_CONFIG=$KBOX_TESTBED_DIR/none.yaml KBOX_PROFILE= KBOX_OUTPUT=

trap '"$tb" down >/dev/null 2>&1 || true' EXIT
eval "$("$tb" up --brokers 1)"
bs=$KAFKA_BOOTSTRAP

move=$KBOX_TESTBED_DIR/topics.json
{
  printf '{"version":1,"topics":['
  for t in $(seq 1 "$topics"); do
    "$kbox" kafka-topics --bootstrap-server "$bs" --create --topic "bench-$t" \
      --partitions "$parts" --replication-factor 1 >/dev/null
    printf '%s{"topic":"bench-%d"}' "$([ "$t" -gt 1 ] && echo ,)" "$t"
  done
  printf ']}\n'
} >"$move"
# The plan for --verify: the current assignment that --generate prints.
plan=$KBOX_TESTBED_DIR/plan.json
# Creating 10,000 partitions takes the broker a while: retry until every
# topic is known (bounded: 10 minutes).
for try in $(seq 1 300); do
  if "$kbox" kafka-reassign-partitions --bootstrap-server "$bs" --generate \
    --topics-to-move-json-file "$move" --broker-list 1 >"$plan.gen"; then break; fi
  [ "$try" -lt 300 ] || { echo "topics not ready: $(head -c 300 "$plan.gen")" >&2; exit 1; }
  sleep 2
done
sed -n 2p "$plan.gen" >"$plan"
n=$(grep -o '"partition":' "$plan" | wc -l)
[ "$n" -eq $((topics * parts)) ] || { echo "plan holds $n partitions, want $((topics * parts))" >&2; exit 1; }
echo "partitions: $n" >&2

measure() { # tool mode → "wall cpu rss_kib" of one run
  local out=$KBOX_TESTBED_DIR/$1-$2.out run=("$kbox" kafka-reassign-partitions)
  [ "$1" = apache ] && run=("$tb" apache kafka-reassign-partitions)
  case $2 in
    generate) args=(--generate --topics-to-move-json-file "$move" --broker-list 1) ;;
    verify) args=(--verify --reassignment-json-file "$plan") ;;
  esac
  /usr/bin/time -f '%e %U %S %M' -o "$out.time" "${run[@]}" --bootstrap-server "$bs" "${args[@]}" >"$out" 2>/dev/null
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$out.time"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "load before: $(uptime)" >&2
printf '| mode | tool | wall s (runs) | median wall s | CPU s | peak RSS MiB |\n|---|---|---|---:|---:|---:|\n'
for mode in generate verify; do
  declare -A wall=() cpu=() rss=()
  for i in $(seq 1 "$repeat"); do
    for tool in apache kbox; do
      read -r w c r < <(measure "$tool" "$mode")
      wall[$tool]+="$w "; cpu[$tool]+="$c "; rss[$tool]+="$r "
      echo "$mode run $i $tool: wall ${w}s cpu ${c}s rss ${r}KiB" >&2
    done
  done
  cmp -s "$KBOX_TESTBED_DIR/apache-$mode.out" "$KBOX_TESTBED_DIR/kbox-$mode.out" \
    && echo "$mode: outputs identical ($(wc -l <"$KBOX_TESTBED_DIR/kbox-$mode.out") lines)" >&2 \
    || echo "$mode: outputs differ (see $KBOX_TESTBED_DIR/*-$mode.out)" >&2
  for tool in kbox apache; do
    w=$(tr ' ' '\n' <<<"${wall[$tool]}" | grep . | median)
    c=$(tr ' ' '\n' <<<"${cpu[$tool]}" | grep . | median)
    r=$(tr ' ' '\n' <<<"${rss[$tool]}" | grep . | median)
    eval "m_$tool=\"$w $c $r\""
    printf '| %s | %s | %s | %s | %s | %d |\n' "$mode" "$tool" "$(echo ${wall[$tool]} | sed 's/ /, /g')" "$w" "$c" $((r / 1024))
  done
  read -r kw kc kr <<<"$m_kbox"; read -r aw ac ar <<<"$m_apache"
  awk -v m="$mode" -v kw="$kw" -v aw="$aw" -v kc="$kc" -v ac="$ac" -v kr="$kr" -v ar="$ar" \
    'BEGIN {printf "| %s | kbox/Apache | | %.2f | %.2f | %.2f |\n", m, kw / aw, kc / ac, kr / ar}'
  unset wall cpu rss
done
echo "load after: $(uptime)" >&2
