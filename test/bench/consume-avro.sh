#!/usr/bin/env bash
# consume-avro.sh: kbox consume decoding N (default 200,000) Confluent-framed
# Avro records of about 200 bytes to /dev/null, the schema from the test
# bed's real Schema Registry (docs/schema-registry.md): records/s, CPU
# seconds and peak RSS, medians of RUNS runs (default 3), next to kbox
# consume printing the same records undecoded, and to kcat's Avro mode
# (kcat -s value=avro -r URL) when the installed kcat has it (and kcat
# printing the bytes, when kcat is installed). A markdown
# table on stdout (see docs/benchmarks.md). Not part of `make test`.
#
#   N=200000 RUNS=3 test/bench/consume-avro.sh
#
# Uses the test bed in $KBOX_TESTBED_DIR when one runs there, else starts a
# 1-broker one and stops it at the end; the same for its registry. The
# topic (1 partition) is filled once by kbox produce --value-schema.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-200000}
RUNS=${RUNS:-3}
KBOX=${KBOX_BIN:-$PWD/bin/kbox}
TB=${KBOX_TESTBED_DIR:-${TMPDIR:-/tmp}/kbox-bench-avro-$(id -u)}
export KBOX_TESTBED_DIR=$TB
TOPIC=bench-avro-$N
SUBJECT=$TOPIC-value
work=$(mktemp -d)
tbup=0
srup=0
cleanup() {
  if [ "$srup" = 1 ]; then test/integration/testbed.sh schema-registry down >/dev/null 2>&1 || true; fi
  if [ "$tbup" = 1 ]; then test/integration/testbed.sh down >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
[ -x "$KBOX" ] || { echo "consume-avro.sh: $KBOX not built (make build)" >&2; exit 1; }
if ! test/integration/testbed.sh env >"$work/env" 2>/dev/null; then
  test/integration/testbed.sh up --brokers 1 >"$work/env"
  tbup=1
fi
# shellcheck disable=SC1090
. "$work/env"
B=$KAFKA_BOOTSTRAP
if [ -f "$TB/schema-registry/env" ] && curl -sf "$(sed -n 's/^export KBOX_SCHEMA_REGISTRY=//p' "$TB/schema-registry/env" | tr -d "'\"")/subjects" >/dev/null 2>&1; then
  # shellcheck disable=SC1091
  . "$TB/schema-registry/env"
else
  eval "$(test/integration/testbed.sh schema-registry up)"
  srup=1
fi
export KBOX_SCHEMA_REGISTRY

cat >"$work/user.avsc" <<'AVSC'
{"type":"record","name":"User","namespace":"bench","fields":[
 {"name":"id","type":"long"},
 {"name":"name","type":"string"},
 {"name":"email","type":["null","string"],"default":null},
 {"name":"created","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"address","type":{"type":"record","name":"Address","fields":[
   {"name":"street","type":"string"},{"name":"city","type":"string"},{"name":"zip","type":"string"}]}},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"note","type":"string"}]}
AVSC
if ! "$KBOX" topics --bootstrap-server "$B" --describe --topic "$TOPIC" >/dev/null 2>&1; then
  "$KBOX" schema register "$SUBJECT" --file "$work/user.avsc" >/dev/null
  "$KBOX" topics --bootstrap-server "$B" --create --topic "$TOPIC" --partitions 1 --replication-factor 1 >/dev/null
  awk -v n="$N" 'BEGIN{for(i=0;i<n;i++) printf "{\"value\":{\"id\":%d,\"name\":\"user number %d\",\"email\":\"user%d@example.com\",\"created\":%d,\"address\":{\"street\":\"%d Long Street Name\",\"city\":\"Springfield\",\"zip\":\"%05d\"},\"tags\":[\"alpha\",\"beta\",\"gamma\"],\"note\":\"a note of some sixty characters to bring the record near 200 bytes\"}}\n", i, i, i, 1700000000000+i, i%1000, i%100000}' >"$work/in.jsonl"
  "$KBOX" produce --bootstrap-server "$B" --topic "$TOPIC" -f json --file "$work/in.jsonl" --value-schema "$SUBJECT" -X linger.ms=5 -X batch.size=262144
  rm -f "$work/in.jsonl"
fi
# The records are Avro, about 200 bytes each, all N there.
bytes=$("$KBOX" consume --bootstrap-server "$B" --topic "$TOPIC" --start earliest -e -f '%V\n' | awk '{n++; s+=$1} END{printf "%d %.0f", n, s/n}')
read -r count avg <<<"$bytes"
[ "$count" = "$N" ] || { echo "consume-avro.sh: $count records in $TOPIC, want $N" >&2; exit 1; }
decoded=$("$KBOX" consume --bootstrap-server "$B" --topic "$TOPIC" --start earliest -e -n 1 --value-format avro -o json)
case $decoded in *'"value_format":"avro"'*) ;; *) echo "consume-avro.sh: not decoded: $decoded" >&2; exit 1 ;; esac

# timed CMD...: runs CMD, sets rss_mib cpu_s wall_s.
timed() {
  /usr/bin/time -f '%M %U %S %e' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
    echo "consume-avro.sh: $* failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
  if grep -q "shown raw" "$work/err"; then echo "consume-avro.sh: $*: records not decoded:" >&2; tail -3 "$work/err" >&2; exit 1; fi
  read -r rss u s e < <(tail -1 "$work/time")
  rss_mib=$(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}')
  cpu_s=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
  wall_s=$e
}
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

declare -A RPS CPU RSS
names=()
run_tool() {
  local name=$1; shift
  names+=("$name")
  : >"$work/$name"
  for _ in $(seq "$RUNS"); do
    timed "$@"
    echo "$wall_s $cpu_s $rss_mib" >>"$work/$name"
  done
  local w
  w=$(cut -d' ' -f1 "$work/$name" | median)
  RPS[$name]=$(awk -v n="$N" -v w="$w" 'BEGIN{printf "%.0f", n/w}')
  CPU[$name]=$(cut -d' ' -f2 "$work/$name" | median)
  RSS[$name]=$(cut -d' ' -f3 "$work/$name" | median)
}
C=("$KBOX" consume --bootstrap-server "$B" --topic "$TOPIC" --start earliest -e)
run_tool "kbox consume -f '%v\n' (bytes, no decoding)" "${C[@]}" -f '%v\n'
run_tool "kbox consume --value-format avro -f '%v\n'" "${C[@]}" --value-format avro -f '%v\n'
run_tool "kbox consume --value-format auto -o json" "${C[@]}" --value-format auto -o json
kcat_note="kcat: not installed"
if command -v kcat >/dev/null; then
  run_tool "kcat -C (bytes, no decoding)" kcat -C -b "$B" -t "$TOPIC" -o beginning -e -q
  # An Avro-enabled kcat lists Avro among its features (kcat -V).
  if kcat -V 2>&1 | grep -q 'Avro'; then
    run_tool "kcat -s value=avro" kcat -C -b "$B" -t "$TOPIC" -o beginning -e -q -s value=avro -r "$KBOX_SCHEMA_REGISTRY"
    kcat_note=""
  else
    kcat_note="kcat: $(kcat -V 2>&1 | sed -n 's/^Version //p' | head -1) has no Avro deserializer (built without libserdes), so no Avro comparison"
  fi
fi

base=${names[1]}
echo "| consumer | records/s | CPU s | peak RSS MiB | vs decoding kbox |"
echo "| --- | ---: | ---: | ---: | ---: |"
for t in "${names[@]}"; do
  ratio=$(awk -v a="${RPS[$t]}" -v b="${RPS[$base]}" 'BEGIN{printf "%.2fx", a/b}')
  echo "| \`$t\` | ${RPS[$t]} | ${CPU[$t]} | ${RSS[$t]} | $ratio |"
done
echo
echo "N=$N Avro records of $avg bytes on average (framing included), 1 partition, 1 broker, the test bed's registry; medians of $RUNS runs; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)${kcat_note:+; $kcat_note}"
