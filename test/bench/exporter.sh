#!/usr/bin/env bash
# exporter.sh: kbox exporter on a 1-broker test bed with 10,000 partitions
# and 1,000 consumer groups (the groups benchmark's shape: group i commits
# on every partition of topic i mod TOPICS): one refresh's wall time
# (kbox_exporter_refresh_duration_seconds) and CPU (the process's
# user+sys over REFRESHES refreshes, divided by them: rendering, GC and
# the idle loop included), the time of a scrape (curl, median and max of
# SCRAPES; plain and gzip), the series served, and the peak RSS. Not part
# of `make test`.
#
#   KBOX_BIN=bin/kbox test/bench/exporter.sh
#
# Environment: TOPICS (100), PARTITIONS per topic (100), NGROUPS (1000),
# INTERVAL (10s), REFRESHES (6), SCRAPES (20), EXTRA (more kbox exporter
# flags, e.g. "--group-granularity partition"), KBOX_TESTBED_DIR (a fresh
# state dir). SEED_ONLY=1 starts and seeds the cluster, prints its
# bootstrap address and leaves it up (stop it with testbed.sh down);
# BOOTSTRAP=host:port measures against such a cluster.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tb="$here/../integration/testbed.sh"
kbox=${KBOX_BIN:?set KBOX_BIN to the kbox binary}
topics=${TOPICS:-100}
parts=${PARTITIONS:-100}
groups=${NGROUPS:-1000}
interval=${INTERVAL:-10s}
refreshes=${REFRESHES:-6}
scrapes=${SCRAPES:-20}
export KBOX_TESTBED_DIR=${KBOX_TESTBED_DIR:-$(mktemp -d /tmp/kbox-bench-exporter.XXXXXX)}
export KBOX_CONFIG=$KBOX_TESTBED_DIR/none.yaml KBOX_PROFILE= KBOX_OUTPUT= KBOX_EXPORTER_TOKEN=
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$tb" down >/dev/null 2>&1 || true
}
if [ -n "${BOOTSTRAP:-}" ]; then
  bs=$BOOTSTRAP
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
else
  [ -n "${SEED_ONLY:-}" ] || trap cleanup EXIT
  eval "$("$tb" up --brokers 1)"
  bs=$KAFKA_BOOTSTRAP

  cg() { "$kbox" kafka-consumer-groups "$@"; }
  # Topic by topic: create it, then commit its groups' offsets (the first
  # commit creates __consumer_offsets while the broker is still light).
  for t in $(seq 1 "$topics"); do
    "$kbox" kafka-topics --bootstrap-server "$bs" --create --topic "bench-$t" \
      --partitions "$parts" --replication-factor 1 >/dev/null
    args=()
    for g in $(seq "$t" "$topics" "$groups"); do args+=(--group "$(printf 'bench-g%05d' "$g")"); done
    [ ${#args[@]} -gt 0 ] || continue
    for try in $(seq 1 30); do
      out=$(cg --bootstrap-server "$bs" --reset-offsets "${args[@]}" --topic "bench-$t" --to-earliest --execute)
      grep -q '^Error:' <<<"$out" || break
      echo "retrying: $(grep '^Error:' <<<"$out")" >&2
      [ "$try" -lt 30 ] || { cp "$KBOX_TESTBED_DIR/n1/server.log" /tmp/kbox-bench-exporter-server.log; exit 1; }
      sleep 5
    done
  done
  n=$(cg --bootstrap-server "$bs" --list | wc -l)
  [ "$n" -eq "$groups" ] || { echo "expected $groups groups, found $n" >&2; exit 1; }
  echo "groups: $n, partitions: $((topics * parts)), group partitions: $((groups * parts))" >&2
  if [ -n "${SEED_ONLY:-}" ]; then
    echo "$bs"
    exit 0
  fi
fi
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
scrape_times() { # url [curl args] → one time per line
  local u=$1; shift
  for _ in $(seq 1 "$scrapes"); do
    curl -s -o /dev/null -w '%{time_total}\n' "$@" "$u"
  done
}

# kbox exporter
# shellcheck disable=SC2086
"$kbox" exporter --bootstrap-server "$bs" --listen 127.0.0.1:0 --interval "$interval" ${EXTRA:-} \
  >"$KBOX_TESTBED_DIR/exporter.out" 2>"$KBOX_TESTBED_DIR/exporter.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 1 600); do
  u=$(head -1 "$KBOX_TESTBED_DIR/exporter.out" 2>/dev/null || true)
  [ -n "$u" ] && break
  sleep 0.1
done
[ -n "$u" ] || { cat "$KBOX_TESTBED_DIR/exporter.err" >&2; exit 1; }
base=${u%/metrics}
until curl -sf "$base/readyz" >/dev/null; do sleep 1; done
# (awk reads to the end: an early exit would fail curl under pipefail)
metric() { curl -s "$u" | awk -v m="$1" '!f && $1 ~ "^"m"({|$)" {print $2; f = 1}'; }
# Two refreshes first (rates and windows set up), then the CPU window.
until [ "$(metric kbox_exporter_refreshes_total | cut -d. -f1)" -ge 2 ]; do sleep 1; done
r0=$(metric kbox_exporter_refreshes_total); c0=$(cpu_ticks "$pid")
durations=()
while :; do
  r=$(metric kbox_exporter_refreshes_total)
  d=$(metric kbox_exporter_refresh_duration_seconds)
  if [ "${#durations[@]}" -eq 0 ] || [ "$r" != "$last_r" ]; then durations+=("$d"); last_r=$r; fi
  awk -v a="$r" -v b="$r0" -v n="$refreshes" 'BEGIN {exit !(a - b >= n)}' && break
  sleep 1
done
c1=$(cpu_ticks "$pid"); r1=$(metric kbox_exporter_refreshes_total)
wall=$(printf '%s\n' "${durations[@]}" | median)
cpu=$(awk -v c="$((c1 - c0))" -v hz="$hz" -v n="$(awk -v a="$r1" -v b="$r0" 'BEGIN {print a - b}')" 'BEGIN {printf "%.3f", c / hz / n}')
plain=$(scrape_times "$u" | sort -n)
gz=$(scrape_times "$u" -H 'Accept-Encoding: gzip' | sort -n)
series=$(curl -s "$u" | grep -vc '^#')
bytes=$(curl -s "$u" | wc -c)
render=$(metric kbox_exporter_render_duration_seconds)
dropped=$(curl -s "$u" | { grep '^kbox_exporter_cardinality_dropped_total' || true; } | tr '\n' ' ')
rss=$(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$pid/status")
kill "$pid"; wait "$pid" 2>/dev/null || true
echo "refresh wall s (each): ${durations[*]}" >&2
echo "dropped: ${dropped:-none}" >&2
printf '| tool | refresh wall s (median) | refresh CPU s | scrape ms (median / max) | gzip scrape ms (median / max) | series | text MiB | render ms | peak RSS MiB |\n|---|---:|---:|---|---|---:|---:|---:|---:|\n'
printf '| kbox exporter %s | %s | %s | %.1f / %.1f | %.1f / %.1f | %d | %.1f | %.0f | %d |\n' "${EXTRA:-}" "$wall" "$cpu" \
  "$(median <<<"$plain" | awk '{print $1 * 1000}')" "$(tail -1 <<<"$plain" | awk '{print $1 * 1000}')" \
  "$(median <<<"$gz" | awk '{print $1 * 1000}')" "$(tail -1 <<<"$gz" | awk '{print $1 * 1000}')" \
  "$series" "$(awk -v b="$bytes" 'BEGIN {print b / 1048576}')" "$(awk -v r="$render" 'BEGIN {print r * 1000}')" "$rss"

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
