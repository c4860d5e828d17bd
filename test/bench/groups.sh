#!/usr/bin/env bash
# groups.sh: `kafka-consumer-groups --describe --all-groups` with many groups
# over many partitions, kbox against the Apache tool (4.4.0): wall time,
# CPU (user+sys) and peak RSS of the client, medians of REPEAT runs each,
# run alternately. Not part of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/groups.sh
#
# Environment: NGROUPS (1000), TOPICS (10), PARTITIONS per topic (100),
# REPEAT (3), KBOX_TESTBED_DIR (a fresh state dir). Group i commits offsets
# on every partition of topic i mod TOPICS, so the describe prints
# GROUPS*PARTITIONS rows and reads every partition's log end.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
groups=${NGROUPS:-1000}
topics=${TOPICS:-10}
parts=${PARTITIONS:-100}
repeat=${REPEAT:-3}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-groups.XXXXXX)}
export KBOX_CONFIG=$KBOX_TESTBED_DIR/none.yaml KBOX_PROFILE= KBOX_OUTPUT=

trap '"$tb" down >/dev/null 2>&1 || true' EXIT
eval "$("$tb" up --brokers 1)"
bs=$KAFKA_BOOTSTRAP

cg() { "$kbox" kafka-consumer-groups "$@"; }
for t in $(seq 1 "$topics"); do
  "$kbox" kafka-topics --bootstrap-server "$bs" --create --topic "bench-$t" \
    --partitions "$parts" --replication-factor 1 >/dev/null
done
# Offsets of each group on its topic, committed 100 groups per invocation.
for t in $(seq 1 "$topics"); do
  args=()
  for g in $(seq "$t" "$topics" "$groups"); do args+=(--group "$(printf 'bench-g%05d' "$g")"); done
  for ((i = 0; i < ${#args[@]}; i += 200)); do
    # The first commits wait for __consumer_offsets to be created.
    for try in 1 2 3 4 5 6; do
      out=$(cg --bootstrap-server "$bs" --reset-offsets "${args[@]:i:200}" --topic "bench-$t" \
        --to-earliest --execute)
      grep -q '^Error:' <<<"$out" || break
      echo "retrying: $(grep '^Error:' <<<"$out")" >&2
      [ "$try" -lt 6 ] || exit 1
      sleep 5
    done
  done
done
n=$(cg --bootstrap-server "$bs" --list | wc -l)
[ "$n" -eq "$groups" ] || { echo "expected $groups groups, found $n" >&2; exit 1; }
echo "groups: $n, partitions: $((topics * parts)), rows: $((groups * parts))" >&2

measure() { # tool → "wall cpu rss_kib" of one run
  local out=$KBOX_TESTBED_DIR/$1.out
  case $1 in
    kbox) /usr/bin/time -f '%e %U %S %M' -o "$out.time" "$kbox" kafka-consumer-groups \
            --bootstrap-server "$bs" --describe --all-groups >"$out" 2>/dev/null ;;
    apache) /usr/bin/time -f '%e %U %S %M' -o "$out.time" "$tb" apache kafka-consumer-groups \
            --bootstrap-server "$bs" --describe --all-groups >"$out" 2>/dev/null ;;
  esac
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$out.time"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

declare -A wall cpu rss
for i in $(seq 1 "$repeat"); do
  for tool in apache kbox; do
    read -r w c r < <(measure "$tool")
    wall[$tool]+="$w "; cpu[$tool]+="$c "; rss[$tool]+="$r "
    echo "run $i $tool: wall ${w}s cpu ${c}s rss ${r}KiB" >&2
  done
done
cmp -s "$KBOX_TESTBED_DIR/apache.out" "$KBOX_TESTBED_DIR/kbox.out" \
  && echo "outputs identical" >&2 || echo "outputs differ (see $KBOX_TESTBED_DIR/*.out)" >&2

printf '| tool | wall s | CPU s | peak RSS MiB |\n|---|---|---|---|\n'
for tool in kbox apache; do
  w=$(tr ' ' '\n' <<<"${wall[$tool]}" | grep . | median)
  c=$(tr ' ' '\n' <<<"${cpu[$tool]}" | grep . | median)
  r=$(tr ' ' '\n' <<<"${rss[$tool]}" | grep . | median)
  eval "m_$tool=\"$w $c $r\""
  printf '| %s | %s | %s | %d |\n' "$tool" "$w" "$c" $((r / 1024))
done
read -r kw kc kr <<<"$m_kbox"; read -r aw ac ar <<<"$m_apache"
awk -v kw="$kw" -v aw="$aw" -v kc="$kc" -v ac="$ac" -v kr="$kr" -v ar="$ar" \
  'BEGIN {printf "| kbox/Apache | %.2f | %.2f | %.2f |\n", kw / aw, kc / ac, kr / ar}'
