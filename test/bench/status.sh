#!/usr/bin/env bash
# status.sh: `kbox status` across CLUSTERS playground profiles (kbox
# playground, one broker each), then the same plus one black-holed profile
# (a listener that accepts every connection and never answers,
# test/bench/blackhole): wall time and CPU of the whole run, and each
# reachable cluster's own check time (check_duration_ms), medians of RUNS.
# The black-holed cluster must cost the run its own --timeout, no more, and
# leave the others' checks as fast as without it. Not part of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/status.sh
#
# Environment: CLUSTERS (10), RUNS (5), TIMEOUT (the --timeout of every
# run: 5s), SAMPLE (--sample: 1s, the default).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
n=${CLUSTERS:-10}
runs=${RUNS:-5}
timeout=${TIMEOUT:-5s}
sample=${SAMPLE:-1s}
dir=$(mktemp -d /tmp/kbox-bench-status.XXXXXX)
export KBOX_CONFIG=$dir/config.yaml KBOX_PROFILE= KBOX_OUTPUT=

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT

# wait_for FILE PATTERN: up to 120 s for a line in a background process's output.
wait_for() {
  for _ in $(seq 1 240); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.5
  done
  echo "no '$2' in $1:" >&2; cat "$1" >&2; exit 1
}

(cd "$root" && go build -o "$dir/blackhole" ./test/bench/blackhole)
"$dir/blackhole" >"$dir/hole.out" 2>&1 &
pids+=($!)
for i in $(seq 1 "$n"); do
  # Each playground writes its "playground" profile to a file of its own.
  KBOX_CONFIG=$dir/pg$i.yaml "$kbox" playground --brokers 1 --topic "t$i:6" >"$dir/pg$i.out" 2>&1 &
  pids+=($!)
done
for i in $(seq 1 "$n"); do
  wait_for "$dir/pg$i.out" '^Serving until'
done
printf 'profiles:\n' >"$KBOX_CONFIG"
names=()
for i in $(seq 1 "$n"); do
  printf '  pg%d:\n    bootstrap-servers: %s\n' "$i" "$(awk '/^Bootstrap:/ {print $2}' "$dir/pg$i.out")" >>"$KBOX_CONFIG"
  names+=("pg$i")
done
wait_for "$dir/hole.out" '^Listening on'
printf '  hole:\n    bootstrap-servers: %s\n' "$(awk '{print $3}' "$dir/hole.out")" >>"$KBOX_CONFIG"

median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# run LABEL PROFILES: RUNS runs of kbox status; medians of the wall time,
# the CPU (user+sys), the slowest and the median reachable cluster's
# check_duration_ms, and the black-holed cluster's error.
run() {
  local label=$1 profiles=$2 w=$dir/wall c=$dir/cpu s=$dir/slowest m=$dir/mid
  : >"$w"; : >"$c"; : >"$s"; : >"$m"
  local hole=""
  for _ in $(seq 1 "$runs"); do
    /usr/bin/time -f '%e %U %S' -o "$dir/time" "$kbox" status --profile "$profiles" --timeout "$timeout" --sample "$sample" -o json >"$dir/out.json" || true
    read -r e u sy < <(tail -1 "$dir/time")
    echo "$e" >>"$w"
    awk -v u="$u" -v s="$sy" 'BEGIN {print u + s}' >>"$c"
    jq '[.clusters[] | select(.reachable) | .check_duration_ms] | max' "$dir/out.json" >>"$s"
    jq '[.clusters[] | select(.reachable) | .check_duration_ms] | sort | .[length / 2 | floor]' "$dir/out.json" >>"$m"
    hole=$(jq -r '[.clusters[] | select(.name == "hole") | .error // "reachable?"] | first // ""' "$dir/out.json")
  done
  printf '%-34s wall %6.2f s  cpu %5.2f s  reachable clusters: slowest check %5d ms, median %5d ms  (%d of %d reachable)\n' "$label" \
    "$(median <"$w")" "$(median <"$c")" "$(median <"$s")" "$(median <"$m")" \
    "$(jq '[.clusters[] | select(.reachable)] | length' "$dir/out.json")" "$(jq '.clusters | length' "$dir/out.json")"
  [ -z "$hole" ] || echo "  black-holed cluster: $hole"
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $n playground profiles; --timeout $timeout --sample $sample; medians of $runs runs" >&2
all=$(IFS=,; echo "${names[*]}")
run "$n playgrounds" "$all"
run "$n playgrounds + 1 black-holed" "$all,hole"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (after)" >&2
