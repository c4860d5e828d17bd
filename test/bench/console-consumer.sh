#!/usr/bin/env bash
# console-consumer.sh: consuming N records (default 1,000,000) of 100 bytes
# to /dev/null with kbox's kafka-console-consumer, Apache's (4.4, JVM) and
# kcat -C (Debian's kcat): records/s, CPU seconds, peak RSS, the median of
# RUNS runs (default 5) each, and the ratios, as a markdown table on stdout
# (see docs/benchmarks.md). Not part of `make test`.
#
#   N=1000000 RUNS=5 test/bench/console-consumer.sh
#
# Uses the test bed in $KBOX_TESTBED_DIR when one runs there, else starts a
# 1-broker one and stops it at the end. The topic (3 partitions) is filled
# once by kbox's kafka-producer-perf-test.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-1000000}
RUNS=${RUNS:-5}
KBOX=${KBOX_BIN:-$PWD/bin/kbox}
TB=${KBOX_TESTBED_DIR:-${TMPDIR:-/tmp}/kbox-bench-console-$(id -u)}
export KBOX_TESTBED_DIR=$TB
TOPIC=bench-console-$N
work=$(mktemp -d)
tbup=0
cleanup() {
  if [ "$tbup" = 1 ]; then test/integration/testbed.sh down >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
[ -x "$KBOX" ] || { echo "console-consumer.sh: $KBOX not built (make build)" >&2; exit 1; }
command -v kcat >/dev/null || { echo "console-consumer.sh: kcat not installed (apt-get install kcat)" >&2; exit 1; }
if ! test/integration/testbed.sh env >"$work/env" 2>/dev/null; then
  test/integration/testbed.sh up --brokers 1 >"$work/env"
  tbup=1
fi
# shellcheck disable=SC1090
. "$work/env"
B=$KAFKA_BOOTSTRAP

if ! "$KBOX" topics --bootstrap-server "$B" --describe --topic "$TOPIC" >/dev/null 2>&1; then
  "$KBOX" topics --bootstrap-server "$B" --create --topic "$TOPIC" --partitions 3 --replication-factor 1 >/dev/null
  "$KBOX" kafka-producer-perf-test --topic "$TOPIC" --num-records "$N" --record-size 100 --throughput -1 \
    --producer-props bootstrap.servers="$B" acks=1 linger.ms=5 batch.size=262144 >/dev/null
fi

# timed CMD...: runs CMD, sets rss_mib cpu_s wall_s; checks N records were read.
timed() {
  /usr/bin/time -f '%M %U %S %e' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
    echo "console-consumer.sh: $* failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
  read -r rss u s e < <(tail -1 "$work/time")
  rss_mib=$(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}')
  cpu_s=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
  wall_s=$e
}

median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

declare -A RPS CPU RSS
run_tool() {
  local name=$1; shift
  : >"$work/$name"
  for _ in $(seq "$RUNS"); do
    timed "$@"
    if [ "$name" != kcat ] && ! grep -q "Processed a total of $N messages" "$work/err"; then
      echo "console-consumer.sh: $name did not read $N records:" >&2; tail -3 "$work/err" >&2; exit 1
    fi
    echo "$wall_s $cpu_s $rss_mib" >>"$work/$name"
  done
  local w
  w=$(cut -d' ' -f1 "$work/$name" | median)
  RPS[$name]=$(awk -v n="$N" -v w="$w" 'BEGIN{printf "%.0f", n/w}')
  CPU[$name]=$(cut -d' ' -f2 "$work/$name" | median)
  RSS[$name]=$(cut -d' ' -f3 "$work/$name" | median)
}

run_tool kbox "$KBOX" kafka-console-consumer --bootstrap-server "$B" --topic "$TOPIC" --from-beginning --max-messages "$N"
run_tool apache test/integration/testbed.sh apache kafka-console-consumer --bootstrap-server "$B" --topic "$TOPIC" --from-beginning --max-messages "$N"
run_tool kcat kcat -C -b "$B" -t "$TOPIC" -o beginning -e -q -c "$N"

echo "| consumer | records/s | CPU s | peak RSS MiB | kbox speed-up |"
echo "| --- | ---: | ---: | ---: | ---: |"
for t in kbox apache kcat; do
  ratio=$(awk -v a="${RPS[kbox]}" -v b="${RPS[$t]}" 'BEGIN{printf "%.2fx", a/b}')
  echo "| $t | ${RPS[$t]} | ${CPU[$t]} | ${RSS[$t]} | $ratio |"
done
echo
echo "N=$N records of 100 bytes, 3 partitions, 1 broker; medians of $RUNS runs; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
