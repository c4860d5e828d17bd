#!/usr/bin/env bash
# lanes.sh runs the integration test packages in phases of concurrent lanes:
# the phases one after the other, the lanes of a phase at the same time, the
# packages of a lane one at a time (go test -p 1). Every test bed takes free
# loopback ports and its own state dir, so two lanes do not meet.
#
#   test/integration/lanes.sh PHASE...
#
# A PHASE is lanes separated by '|', a lane is package names (directories
# under test/integration) separated by spaces. '*' in a lane stands for
# every package that no phase names (a new package runs without being
# listed). Example: lanes.sh 'verify | topics configs' 'reassign' '*'.
#
# Environment: GO (default go), IT_TIMEOUT (go test -timeout, per package;
# default 70m), GOFLAGS_IT (extra go test flags, e.g. -v), KBOX_BIN (the
# binary under test, as for go test). Each lane's output lines are prefixed
# with its name (e.g. "1a"); a failing lane does not stop the others or the
# later phases. Exit status 1 if any package failed, and then the last lines
# printed are a digest of the failures (each failing test with the first
# message it logged, timeouts, build failures), so that the tail of a CI log
# names what failed.
set -uo pipefail

cd "$(dirname "$0")/../.."
GO=${GO:-go}
IT_TIMEOUT=${IT_TIMEOUT:-70m}

[[ $# -ge 1 ]] || { echo "usage: lanes.sh PHASE..." >&2; exit 2; }

all=$(cd test/integration && for d in */; do
  d=${d%/}
  ls "$d"/*_test.go >/dev/null 2>&1 && echo "$d"
done)

# From here on, word splitting of phases and lanes into package names is
# intended, and '*' must not glob.
set -f
# Every named package must exist; '*' is what no phase names.
named=" "
for phase in "$@"; do
  for p in ${phase//|/ }; do
    [[ "$p" == '*' ]] && continue
    if ! grep -qx -- "$p" <<<"$all"; then
      echo "lanes.sh: no test package test/integration/$p" >&2
      exit 2
    fi
    named+="$p "
  done
done
rest=""
for p in $all; do
  [[ "$named" == *" $p "* ]] || rest+="$p "
done

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# digest LOG prints, for each "--- FAIL" line of a lane's log, the test and
# the file:line messages next to it: go test without -v prints a failed
# test's messages after its "--- FAIL" line, with -v before it.
digest() {
  awk '
    { line[NR] = $0 }
    END {
      failed = 0
      for (i = 1; i <= NR; i++) {
        if (line[i] ~ /^\[..\] ok  \t/) { failed = 0; last = i; continue }
        if (line[i] ~ /^\[..\] panic: /) { print substr(line[i], 1, 240); continue }
        if (line[i] ~ /^\[..\] FAIL\t/) {
          # A package that failed outside any test (TestMain, a build
          # error): its last lines say why.
          if (!failed)
            for (j = i - 3; j < i; j++)
              if (j > last && line[j] !~ /^\[..\] FAIL$/) print "    " substr(line[j], 1, 240)
          print substr(line[i], 1, 240)
          failed = 0
          last = i
          continue
        }
        if (line[i] !~ / --- FAIL: /) continue
        failed = 1
        print substr(line[i], 1, 240)
        n = 0
        for (j = i + 1; j <= NR && j <= i + 40 && n < 2; j++) {
          if (line[j] ~ /--- (FAIL|PASS): /) break
          if (line[j] ~ /_test\.go:[0-9]+: /) { print "    " substr(line[j], 1, 240); n++ }
        }
        if (n > 0) continue
        for (j = i - 1; j >= 1 && j >= i - 400 && n < 2; j--) {
          if (line[j] ~ /=== RUN /) break
          if (line[j] ~ /_test\.go:[0-9]+: /) { print "    " substr(line[j], 1, 240); n++ }
        }
      }
    }' "$1"
}

status=0
ran=()
start=$(date +%s)
n=0
for phase in "$@"; do
  n=$((n + 1))
  IFS='|' read -r -a lanes <<<"$phase"
  pids=()
  phase_start=$(date +%s)
  l=0
  for lane in "${lanes[@]}"; do
    pkgs=()
    for p in $lane; do
      if [[ "$p" == '*' ]]; then
        for r in $rest; do pkgs+=("./test/integration/$r/"); done
      else
        pkgs+=("./test/integration/$p/")
      fi
    done
    [[ ${#pkgs[@]} -gt 0 ]] || continue
    name="$n$(printf "\\x$(printf %x $((97 + l)))")"
    l=$((l + 1))
    echo "[$name] ${pkgs[*]}"
    ran+=("$name")
    (
      # shellcheck disable=SC2086
      "$GO" test -race -tags integration -count=1 -p 1 -timeout "$IT_TIMEOUT" ${GOFLAGS_IT:-} "${pkgs[@]}" 2>&1 |
        sed -u "s/^/[$name] /" | tee "$logs/$name"
      exit "${PIPESTATUS[0]}"
    ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || status=1
  done
  echo "[phase $n] $(($(date +%s) - phase_start)) s"
done
echo "[lanes] $(($(date +%s) - start)) s in all; $(uptime | sed 's/.*load/load/')"
if [[ $status -ne 0 ]]; then
  echo "[failures]"
  for name in "${ran[@]}"; do digest "$logs/$name"; done | head -n 60
fi
exit "$status"
