#!/usr/bin/env bash
# bench/topics.sh: kbox kafka-topics vs Apache kafka-topics.sh (Kafka 4.4.0)
# on a test-bed cluster with many topics.
#
# Usage: bench/topics.sh [-n TOPICS] [-p PARTITIONS] [-r RUNS] [--keep]
#   -n  number of topics to create (default 1000), -p partitions each (3),
#   -r  runs per tool and row (default 5; runs alternate kbox/apache),
#   --keep  leave the cluster running (KBOX_TESTBED_DIR) for another run.
# Environment: KBOX_BIN (default: builds /tmp/kbox-bench), KBOX_TESTBED_DIR
# (default /tmp/tb-bench-topics). Prints a Markdown table of medians and
# ratios of wall time, CPU time (user+sys) and peak RSS, measured with
# /usr/bin/time -f.
set -euo pipefail

N=1000 P=3 RUNS=5 KEEP=0
while [[ $# -gt 0 ]]; do
	case $1 in
	-n) N=$2; shift 2 ;;
	-p) P=$2; shift 2 ;;
	-r) RUNS=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	*) echo "usage: $0 [-n TOPICS] [-p PARTITIONS] [-r RUNS] [--keep]" >&2; exit 2 ;;
	esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TB=$ROOT/test/integration/testbed.sh
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-/tmp/tb-bench-topics}
[[ -x /usr/bin/time ]] || { echo "bench: /usr/bin/time (GNU time) is required" >&2; exit 1; }

BIN=${KBOX_BIN:-}
if [[ -z $BIN ]]; then
	BIN=/tmp/kbox-bench
	(cd "$ROOT" && go build -o "$BIN" ./cmd/kbox)
fi
WORK=$(mktemp -d)
ln -s "$BIN" "$WORK/kafka-topics"
KBOX="$WORK/kafka-topics"
# Keep the user's kbox profiles out of the measurement.
export KBOX_CONFIG=$WORK/none.yaml KBOX_PROFILE= KBOX_OUTPUT=

cleanup() {
	rm -rf "$WORK"
	if [[ $KEEP == 0 ]]; then "$TB" down >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

if ! BS_LINE=$("$TB" env 2>/dev/null); then
	BS_LINE=$("$TB" up --brokers 1)
fi
BS=$(sed -n 's/^export KAFKA_BOOTSTRAP=//p' <<<"$BS_LINE" | tr -d "'\"")
echo "bench: cluster $BS" >&2

have=$("$KBOX" --bootstrap-server "$BS" --list --topic 'bench-.*' | grep -c . || true)
if (( have < N )); then
	echo "bench: creating $((N - have)) topics of $P partitions with kbox" >&2
	for ((i = 0; i < N; i++)); do
		printf 'bench-%04d\n' "$i"
	done | xargs -P 4 -I{} "$KBOX" --bootstrap-server "$BS" --create --if-not-exists --topic {} --partitions "$P" --replication-factor 1 >/dev/null
fi

# measure TOOL ARGS... -> "wall cpu rss_kb" (exit status must be 0)
measure() {
	/usr/bin/time -o "$WORK/time" -f '%e %U %S %M' "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; return 1; }
	awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' "$WORK/time"
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2] + a[NR/2+1]) / 2}'; }

row() {
	local label=$1; shift
	local kw=() kc=() kr=() aw=() ac=() ar=()
	for ((r = 0; r < RUNS; r++)); do
		read -r w c m < <(measure "$KBOX" --bootstrap-server "$BS" "$@")
		kw+=("$w") kc+=("$c") kr+=("$m")
		read -r w c m < <(measure "$TB" apache kafka-topics --bootstrap-server "$BS" "$@")
		aw+=("$w") ac+=("$c") ar+=("$m")
	done
	local mkw mkc mkr maw mac mar
	mkw=$(printf '%s\n' "${kw[@]}" | median); mkc=$(printf '%s\n' "${kc[@]}" | median); mkr=$(printf '%s\n' "${kr[@]}" | median)
	maw=$(printf '%s\n' "${aw[@]}" | median); mac=$(printf '%s\n' "${ac[@]}" | median); mar=$(printf '%s\n' "${ar[@]}" | median)
	awk -v l="$label" -v kw="$mkw" -v aw="$maw" -v kc="$mkc" -v ac="$mac" -v kr="$mkr" -v ar="$mar" 'BEGIN {
		printf "| %s | %.3f | %.3f | %.1fx | %.3f | %.3f | %.1fx | %.1f | %.1f | %.1fx |\n", l, kw, aw, aw / kw, kc, ac, ac / (kc > 0 ? kc : 0.001), kr / 1024, ar / 1024, ar / kr }'
}

echo "kafka-topics, $N topics x $P partitions, 1 broker, median of $RUNS alternating runs ($(date -u +%Y-%m-%d))"
echo
echo "| command | kbox wall s | Apache wall s | wall ratio | kbox CPU s | Apache CPU s | CPU ratio | kbox RSS MiB | Apache RSS MiB | RSS ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
row "--list" --list
row "--describe (all)" --describe
row "--describe --topic bench-0500" --describe --topic bench-0500
