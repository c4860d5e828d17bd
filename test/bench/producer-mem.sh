#!/usr/bin/env bash
# producer-mem.sh: peak RSS, throughput and CPU per MiB of
# kafka-producer-perf-test (1 KiB records, unthrottled, client defaults:
# buffer.memory 32 MiB) for kbox binaries and Apache's tool, on one 1-broker
# test bed, run alternately (ROUNDS rounds), per run and as medians
# (issue 31). Also `kbox verify run` peak RSS for the kbox binaries.
#
#   BINS="before=/tmp/kbox-old after=bin/kbox" COUNTS="300000 2000000" test/bench/producer-mem.sh
#
# Env: BINS (name=path ...; default after=$KBOX_BIN), COUNTS, ROUNDS (3),
# APACHE (1: include Apache), VERIFY (2000000: verify run's records; 0: skip),
# KBOX_TESTBED_DIR (default: a fresh one started and stopped here; set
# KAFKA_BOOTSTRAP to use a running broker instead).
set -euo pipefail
cd "$(dirname "$0")/../.."
BINS=${BINS:-"after=${KBOX_BIN:-$PWD/bin/kbox}"}
COUNTS=${COUNTS:-"300000 2000000"}
ROUNDS=${ROUNDS:-3}
APACHE=${APACHE:-1}
VERIFY=${VERIFY:-2000000}
tb=test/integration/testbed.sh
work=$(mktemp -d)
own=0
cleanup() {
  if [ "$own" = 1 ]; then "$tb" down >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${KAFKA_BOOTSTRAP:-}" ]; then
  export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-${TMPDIR:-/tmp}/kbox-bench-prodmem-$(id -u)}
  eval "$("$tb" up --brokers 1 | grep '^export')"
  own=1
fi
bs=$KAFKA_BOOTSTRAP
first=${BINS%%=*}; first=${BINS#*=}; first=${first%% *}
"$first" kafka-topics --bootstrap-server "$bs" --create --topic prodmem --partitions 3 --replication-factor 1 >/dev/null 2>&1 || true
for b in $BINS; do mkdir -p "$work/${b%%=*}"; ln -s "$(realpath "${b#*=}")" "$work/${b%%=*}/kafka-producer-perf-test"; done

# one NAME N CMD...: runs CMD under GNU time, appends "rec/s cpu_s rss_kib load" to $work/NAME.N
one() {
  local name=$1 n=$2; shift 2
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  read -r u s m < <(tail -1 "$work/time")
  local rps; rps=$(grep 'records sent, .* 99.9th' "$work/out" | tail -1 | awk -F'[ ,]+' '{print $4}')
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  echo "$rps $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $m $load" | tee -a "$work/$name.$n" | sed "s/^/$name $n: /" >&2
}
for n in $COUNTS; do
  for ((r = 0; r < ROUNDS; r++)); do
    for b in $BINS; do
      one "${b%%=*}" "$n" "$work/${b%%=*}/kafka-producer-perf-test" --topic prodmem --record-size 1024 --bootstrap-server "$bs" --num-records "$n" --throughput -1
    done
    if [ "$APACHE" = 1 ]; then
      one apache "$n" "$tb" apache kafka-producer-perf-test --topic prodmem --record-size 1024 --bootstrap-server "$bs" --num-records "$n" --throughput -1
    fi
  done
done
echo "| tool | records | records/s (median) | MiB/s | CPU s (median) | CPU s per MiB | peak RSS MiB (median) | peak RSS MiB (runs) | load average (runs) |"
echo "|---|---|---|---|---|---|---|---|---|"
names=""; for b in $BINS; do names="$names ${b%%=*}"; done
[ "$APACHE" = 1 ] && names="$names apache"
for n in $COUNTS; do
  for name in $names; do
    python3 - "$work/$name.$n" "$name" "$n" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
name, n = sys.argv[2], int(sys.argv[3])
rps = st.median(float(r[0]) for r in rows); cpu = st.median(float(r[1]) for r in rows)
rss = [int(r[2]) / 1024 for r in rows]
mib = n * 1024 / 1048576
print(f"| {name} | {n:,} | {rps:,.0f} | {rps*1024/1048576:.1f} | {cpu:.2f} | {cpu/mib*1000:.2f} ms | {st.median(rss):.1f} | {', '.join(f'{x:.1f}' for x in rss)} | {', '.join(r[3] for r in rows)} |")
PY
  done
done
[ "$VERIFY" != 0 ] || exit 0
echo
echo "| kbox verify run | records | peak RSS MiB (median) | peak RSS MiB (runs) | CPU s (median) | wall s (median) | load average (runs) |"
echo "|---|---|---|---|---|---|---|"
for ((r = 0; r < ROUNDS; r++)); do
  for b in $BINS; do
    /usr/bin/time -f "%U %S %M %e" -o "$work/time" "${b#*=}" verify run --bootstrap-server "$bs" --topic "prodmem-v-${b%%=*}-$r-$$" --create-topic \
      --partitions 3 --replication-factor 1 --messages "$VERIFY" --progress none --timeout 10m >"$work/out" 2>"$work/err" || { cat "$work/out" "$work/err" >&2; exit 1; }
    read -r u s m e < <(tail -1 "$work/time")
    echo "$m $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $e $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/v.${b%%=*}" | sed "s/^/verify ${b%%=*}: /" >&2
  done
done
for b in $BINS; do
  python3 - "$work/v.${b%%=*}" "${b%%=*}" "$VERIFY" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
rss = [int(r[0]) / 1024 for r in rows]
print(f"| {sys.argv[2]} | {int(sys.argv[3]):,} | {st.median(rss):.1f} | {', '.join(f'{x:.1f}' for x in rss)} | {st.median(float(r[1]) for r in rows):.2f} | {st.median(float(r[2]) for r in rows):.1f} | {', '.join(r[3] for r in rows)} |")
PY
done
