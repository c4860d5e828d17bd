#!/usr/bin/env bash
# replicas.sh: replica verification of 1,000 partitions (10 topics x 100,
# replication factor 3, on 3 brokers), kbox against Apache's
# ReplicaVerificationTool (4.4.0): wall time, CPU (user+sys) and peak RSS
# of the client, medians of REPEAT runs each, run alternately. Not part of
# `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/replicas.sh
#
# Apache's tool runs until killed: a run is timed from its start to its
# first "max lag" report with --time -2 --report-interval-ms 0, which it
# prints after its first round has compared every partition from the log
# start (then it is stopped with SIGTERM). The drop-in is timed the same
# way; `kbox replicas verify` runs to its end (the same pass, each batch's
# CRC recomputed on every replica, every batch compared byte for byte).
#
# Environment: TOPICS (10), PARTITIONS per topic (100), RECORDS per
# partition (100, 100 bytes each), REPEAT (3), KBOX_TESTBED_DIR (a fresh
# state dir).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
topics=${TOPICS:-10}
parts=${PARTITIONS:-100}
records=${RECORDS:-100}
repeat=${REPEAT:-3}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-replicas.XXXXXX)}
export KBOX_CONFIG=$KBOX_TESTBED_DIR/none.yaml KBOX_PROFILE= KBOX_OUTPUT=

trap '"$tb" down >/dev/null 2>&1 || true' EXIT
eval "$("$tb" up --brokers 3)"
bs=$KAFKA_BOOTSTRAP

for t in $(seq 1 "$topics"); do
  "$kbox" kafka-topics --bootstrap-server "$bs" --create --topic "bench-$t" \
    --partitions "$parts" --replication-factor 3 >/dev/null
  "$kbox" kafka-producer-perf-test --bootstrap-server "$bs" --topic "bench-$t" \
    --num-records $((parts * records)) --record-size 100 --throughput -1 \
    --producer-props acks=all linger.ms=5 >/dev/null
done
echo "partitions: $((topics * parts)), records: $((topics * parts * records))" >&2
args=(--broker-list "$bs" --topics-include 'bench-.*' --time -2 --report-interval-ms 0)

# first_report CMD...: run CMD in its own process group under
# /usr/bin/time until its stdout holds a "max lag" line, then stop it.
first_report() {
  local out=$KBOX_TESTBED_DIR/run.out
  : >"$out"
  setsid /usr/bin/time -f '%e %U %S %M' -o "$out.time" "$@" >"$out" 2>/dev/null &
  local pid=$!
  until grep -q 'max lag is' "$out"; do
    kill -0 "$pid" 2>/dev/null || { echo "$* ended before a report" >&2; cat "$out" >&2; exit 1; }
    sleep 0.05
  done
  # SIGTERM to the group but /usr/bin/time (the leader), which then writes
  # its numbers (a background job starts with SIGINT ignored).
  for p in $(ps -o pid= -g "$pid"); do [ "$p" = "$pid" ] || kill -TERM "$p" 2>/dev/null || true; done
  wait "$pid" || true
  grep 'max lag is' "$out" | head -1 | sed 's/^[^:]*:[^:]*:[^:]*: //' >"$KBOX_TESTBED_DIR/$tool.report"
}

measure() { # tool → "wall cpu rss_kib" of one run
  local out=$KBOX_TESTBED_DIR/run.out
  case $1 in
    apache) first_report "$tb" apache kafka-replica-verification "${args[@]}" ;;
    kbox-drop-in) first_report "$kbox" kafka-replica-verification "${args[@]}" ;;
    kbox-verify)
      /usr/bin/time -f '%e %U %S %M' -o "$out.time" "$kbox" replicas verify --bootstrap-server "$bs" \
        --topic 'bench-.*' -o json >"$out" 2>/dev/null
      grep -q '"partitions_diverged":0' "$out" || { echo "kbox replicas verify: not a clean verdict" >&2; exit 1; } ;;
  esac
  # /usr/bin/time writes a "Command terminated by signal" line first.
  tail -1 "$out.time" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}'
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

tools=(apache kbox-drop-in kbox-verify)
declare -A wall cpu rss
for i in $(seq 1 "$repeat"); do
  for tool in "${tools[@]}"; do
    read -r w c r < <(measure "$tool")
    wall[$tool]+="$w "; cpu[$tool]+="$c "; rss[$tool]+="$r "
    echo "run $i $tool: wall ${w}s cpu ${c}s rss ${r}KiB" >&2
  done
done
cmp -s "$KBOX_TESTBED_DIR/apache.report" "$KBOX_TESTBED_DIR/kbox-drop-in.report" \
  && echo "first reports identical: $(cat "$KBOX_TESTBED_DIR/apache.report")" >&2 \
  || echo "first reports differ (see $KBOX_TESTBED_DIR/*.report)" >&2

printf '| tool | wall s | CPU s | peak RSS MiB |\n|---|---|---|---|\n'
for tool in "${tools[@]}"; do
  w=$(tr ' ' '\n' <<<"${wall[$tool]}" | grep . | median)
  c=$(tr ' ' '\n' <<<"${cpu[$tool]}" | grep . | median)
  r=$(tr ' ' '\n' <<<"${rss[$tool]}" | grep . | median)
  printf '| %s | %s | %s | %d |\n' "$tool" "$w" "$c" $((r / 1024))
done
