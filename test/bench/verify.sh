#!/usr/bin/env bash
# verify.sh: peak RSS and CPU of `kbox verify check` and `kbox verify run`
# against record count (default 1M, 2M, 5M), as a markdown table on stdout
# (see docs/benchmarks.md). `make bench-verify` runs it.
#
#   COUNTS="1000000 2000000 5000000" PARTS="check run" test/bench/verify.sh
#
# verify check reads generated gzip logs (one producer, one consumer with
# --verbose, 3 partitions, 3 records lost so the check has work to show).
# verify run runs 1 producer and 1 consumer, unthrottled, on a 1-broker
# test bed (3 partitions, RF 1) started and stopped by this script; the
# broker's CPU over the same interval is read from /proc.
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNTS=${COUNTS:-"1000000 2000000 5000000"}
PARTS=${PARTS:-"check run"}
KBOX=${KBOX_BIN:-$PWD/bin/kbox}
TB=${KBOX_TESTBED_DIR:-${TMPDIR:-/tmp}/kbox-bench-verify-$(id -u)}
work=$(mktemp -d)
tbup=0
cleanup() {
  if [ "$tbup" = 1 ]; then KBOX_TESTBED_DIR=$TB test/integration/testbed.sh down >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
[ -x "$KBOX" ] || { echo "verify.sh: $KBOX not built (make build)" >&2; exit 1; }
go build -o "$work/verifylogs" ./test/bench/verifylogs
clk=$(getconf CLK_TCK)

# timed CMD...: runs CMD, sets rss_mib cpu_s wall_s code
timed() {
  set +e
  /usr/bin/time -f '%M %U %S %e' -o "$work/time" "$@" >"$work/out" 2>"$work/err"
  code=$?
  set -e
  read -r rss u s e < <(tail -1 "$work/time")
  rss_mib=$(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}')
  cpu_s=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
  wall_s=$e
}
per_m() { awk -v c="$1" -v n="$2" 'BEGIN{printf "%.2f", c*1e6/n}'; }
verdict() { head -1 "$work/out" | cut -c1-40; }

echo "| command | records | peak RSS MiB | CPU s | CPU s per 1M records | wall s | broker CPU s | verdict |"
echo "|---|---|---|---|---|---|---|---|"
for n in $COUNTS; do
  case " $PARTS " in *" check "*) ;; *) break ;; esac
  "$work/verifylogs" -n "$n" -lost 3 -gzip -out "$work/v" >/dev/null
  timed "$KBOX" verify check --producer-log "$work/v.producer.log.gz" --consumer-log "$work/v.consumer.log.gz"
  echo "| verify check | $n | $rss_mib | $cpu_s | $(per_m "$cpu_s" "$n") | $wall_s | – | $(verdict) |"
  rm -f "$work"/v.*
done

case " $PARTS " in *" run "*) ;; *) exit 0 ;; esac
eval "$(KBOX_TESTBED_DIR=$TB test/integration/testbed.sh up --brokers 1)"
tbup=1
bpid=$(cat "$TB/n1/pid")
for n in $COUNTS; do
  b0=$(awk '{print $14+$15}' "/proc/$bpid/stat")
  timed "$KBOX" verify run --bootstrap-server "$KAFKA_BOOTSTRAP" --topic "bench-verify-$n-$$" --create-topic --partitions 3 \
    --replication-factor 1 --messages "$n" --progress none --timeout 20m
  b1=$(awk '{print $14+$15}' "/proc/$bpid/stat")
  bcpu=$(awk -v a="$b0" -v b="$b1" -v c="$clk" 'BEGIN{printf "%.2f", (b-a)/c}')
  echo "| verify run | $n | $rss_mib | $cpu_s | $(per_m "$cpu_s" "$n") | $wall_s | $bcpu | $(verdict) |"
done
