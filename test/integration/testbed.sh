#!/usr/bin/env bash
# testbed.sh: the one entry point to a real Apache Kafka (KRaft) test cluster,
# run as plain JVMs on loopback from the Maven Central jars (no Docker).
#
# Usage:
#   testbed.sh up [--brokers N] [--security plaintext|sasl_ssl] [--log-dirs D] [--authorizer]
#                 [--dynamic-quorum]
#       Start N combined broker+controller nodes (IDs 1..N; default 1,
#       plaintext) and wait until all are registered. Each node gets D
#       log.dirs (default 1: nN/data; D > 1 adds nN/data2 .. nN/dataD, e.g.
#       for log-dir moves). --authorizer turns ACLs on: StandardAuthorizer
#       (authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer),
#       allow.everyone.if.no.acl.found=false, and super.users=User:ANONYMOUS;User:admin:
#       the admin principal of either mode (ANONYMOUS on the PLAINTEXT and
#       CONTROLLER listeners, which the brokers and controllers use between
#       themselves; admin on SASL_SSL), so every other SASL principal
#       (alice) needs ACLs. Prints
#         export KAFKA_BOOTSTRAP=127.0.0.1:p1,...
#       and with sasl_ssl also
#         export KAFKA_CLIENT_PROPERTIES=<file>
#       (a sasl_ssl cluster also has delegation tokens on: its brokers set
#       delegation.token.secret.key, so SCRAM clients may log in with a
#       token id and HMAC, tokenauth="true")
#       on stdout (also written to $KBOX_TESTBED_DIR/env). The CONTROLLER
#       listeners (PLAINTEXT, for --bootstrap-controller) are in
#       $KBOX_TESTBED_DIR/controller-bootstrap. Fails (exit 1) when
#       a cluster already runs in that state dir; leaves no JVM behind on
#       failure.
#       --dynamic-quorum bootstraps the quorum dynamically (KIP-853,
#       kraft.version 1): controller.quorum.bootstrap.servers instead of
#       controller.quorum.voters, every node formatted (one JVM each) with
#       `kafka-storage format --initial-controllers` naming all N nodes and
#       the directory ids of their metadata log dirs; controllers can then be
#       added and removed (kafka-metadata-quorum add-controller,
#       remove-controller; start-controller starts one to add).
#   testbed.sh start-controller ID
#       Dynamic quorum only (up --dynamic-quorum): start a controller-only
#       node ID (ID > N; process.roles=controller, its CONTROLLER listener
#       on a free port, log dir nID/data) formatted with `kafka-storage
#       format --no-initial-controllers`, so that it joins the quorum as an
#       observer, not a voter; wait until the leader lists it among the
#       voters or observers. Prints nothing on stdout; its server properties
#       (what add-controller's --command-config wants) are
#       $KBOX_TESTBED_DIR/nID/server.properties. A second call restarts the
#       stopped node with its config and data. stop-broker ID stops it; down
#       stops it with the rest.
#   testbed.sh down
#       Stop every node (SIGTERM, SIGKILL after $KBOX_TESTBED_STOP_TIMEOUT s)
#       and remove the state. Idempotent.
#   testbed.sh stop-broker ID [--kill]
#       SIGTERM (then SIGKILL after the timeout) or, with --kill, SIGKILL node ID.
#       Stopping a node that is not running is a no-op.
#   testbed.sh start-broker ID
#       Restart node ID with the same config and data; wait until the node
#       answers on its own PLAINTEXT listener and lists itself as registered.
#       Prints nothing on stdout (the bootstrap list does not change).
#   testbed.sh status
#       One line per node on stdout: "node ID running|stopped pid=... plaintext=...",
#       then one per start-controller node: "node ID running|stopped pid=... controller=...".
#   testbed.sh env
#       Print the export lines of the running cluster (exit 1 if none runs).
#   testbed.sh apache TOOL [ARGS...]
#       Run the Apache reference tool (kafka-topics, kafka-console-consumer,
#       ... with or without .sh; or kafka-run-class CLASS) of the same jars,
#       like bin/TOOL.sh would: same stdout, stderr, stdin and exit code.
#       Needs no running cluster.
#   testbed.sh apache-batch TOOL FILE
#       Run the Apache tool once per line of FILE in one JVM (a JVM start costs
#       seconds): each line holds one command line, its arguments separated by
#       tabs. Prints, per line, "@@case EXIT" and the case's stdout and stderr,
#       each base64-encoded on one line. Exit.exit and System.exit (argparse4j's
#       parse errors) end the case, not the JVM.
#       No stdin. The Go side: testbed.ApacheBatch.
#   testbed.sh trogdor up [--agents N]
#       Start a Trogdor coordinator and N agents (default 3; nodes agent1..N)
#       on loopback from Maven Central's org.apache.kafka:trogdor
#       $KBOX_TROGDOR_VERSION jar (default 4.3.0), independent of the Kafka
#       cluster (which may or may not run). Waits until the coordinator and
#       every agent listen on their REST ports, then prints
#         export TROGDOR_COORDINATOR=http://127.0.0.1:port
#         export TROGDOR_AGENTS=agent1,agent2,...
#       (also written to $KBOX_TESTBED_DIR/trogdor/env). Fails (exit 1) when
#       Trogdor already runs in that state dir.
#   testbed.sh trogdor down
#       Stop the coordinator and the agents and remove their state. Idempotent;
#       `testbed.sh down` does it too.
#   testbed.sh trogdor kill-agent NAME
#       SIGKILL one agent (its worker processes are left to die on their own).
#   testbed.sh schema-registry up
#       Start a Confluent-API-compatible Schema Registry (Apicurio Registry,
#       in-memory storage, its ccompat v7 API) on a free loopback port,
#       independent of the Kafka cluster (which may or may not run). The
#       registry is built once from Maven Central into
#       $KBOX_KAFKA_CACHE/apicurio-registry-VERSION/app (a few minutes the
#       first time; see docs/schema-registry.md). Waits until the API
#       answers, then prints
#         export KBOX_SCHEMA_REGISTRY=http://127.0.0.1:port/apis/ccompat/v7
#       (also written to $KBOX_TESTBED_DIR/schema-registry/env). Fails (exit 1)
#       when a registry already runs in that state dir.
#   testbed.sh schema-registry down
#       Stop the registry and remove its state. Idempotent; `testbed.sh down`
#       does it too.
#   testbed.sh schema-registry build
#       Only build the registry into the cache (a no-op once it is there);
#       prints the directory of its jars.
#
# Environment:
#   KBOX_TESTBED_DIR   state dir (default ${TMPDIR:-/tmp}/kbox-testbed-$(id -u));
#                      separate dirs give separate clusters.
#   KAFKA_VERSION      Apache Kafka version from Maven Central (default 4.4.0).
#   KBOX_LOG4J_VERSION log4j-slf4j-impl version (default 2.25.5, matches log4j-core).
#   KBOX_KAFKA_CACHE   jar cache root (default $HOME/.cache/kbox); jars go to
#                      $KBOX_KAFKA_CACHE/kafka-$KAFKA_VERSION/lib.
#   KBOX_TESTBED_TIMEOUT        readiness deadline in seconds (default 120).
#   KBOX_TESTBED_STOP_TIMEOUT   SIGTERM grace period in seconds (default 15).
#   KBOX_TESTBED_HEAP_OPTS      broker heap (default "-Xms128m -Xmx512m").
#   KBOX_TESTBED_JVM_OPTS       extra broker JVM options.
#   KBOX_TESTBED_SERVER_PROPS   extra lines appended to every server.properties.
#   KBOX_SCHEMA_REGISTRY_HEAP_OPTS  the registry's heap (default "-Xms64m -Xmx256m").
#   KBOX_TESTBED_JVM_LOG        if set, `apache` and `apache-batch` append one
#                      line per tool JVM started ("apache TOOL" or
#                      "apache-batch TOOL N") to this file: how the suite
#                      counts its JVM starts (docs/benchmarks.md, Suite time).
#   JAVA_HOME, and for `apache`: KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS,
#   KAFKA_OPTS, KAFKA_LOG4J_OPTS as in bin/kafka-run-class.sh.
#
# Layout of the state dir:
#   cluster.env            settings of the running cluster (sourced by this script)
#   env                    the export lines
#   plaintext-bootstrap    PLAINTEXT listeners (always)
#   ssl-bootstrap          mTLS SSL listeners (sasl_ssl only)
#   client.properties      SASL_SSL/SCRAM-SHA-512 admin client config (sasl_ssl only)
#   ssl-client.properties  SSL listener client config with the client cert (sasl_ssl only)
#   tls/                   ca.pem ca-key.pem broker.pem client-cert.pem client-key.pem client.pem
#   nN/server.properties nN/server.log nN/stdout.log nN/data/ [nN/data2/..] nN/pid
#   nN/format.log          kafka-storage format's output (--dynamic-quorum)
#   trogdor/{trogdor.conf,env,NAME.pid,NAME.log}  (trogdor up)
#   schema-registry/{env,pid,registry.log,tmp/}     (schema-registry up)
#   log4j2.properties bin/tbtool tmp/
#
# All diagnostics go to stderr; stdout carries only the export lines (up, env),
# the status lines (status) or the tool's own output (apache).

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)

KAFKA_VERSION=${KAFKA_VERSION:-4.4.0}
LOG4J_VERSION=${KBOX_LOG4J_VERSION:-2.25.5}
CACHE_DIR=${KBOX_KAFKA_CACHE:-$HOME/.cache/kbox}/kafka-$KAFKA_VERSION
LIB_DIR=$CACHE_DIR/lib
TB=${KBOX_TESTBED_DIR:-${TMPDIR:-/tmp}/kbox-testbed-$(id -u)}
[[ "$TB" == /* ]] || TB="$PWD/$TB" # node PIDs are matched on absolute paths
while [[ "$TB" == */ && "$TB" != / ]]; do TB=${TB%/}; done
READY_TIMEOUT=${KBOX_TESTBED_TIMEOUT:-120}
STOP_TIMEOUT=${KBOX_TESTBED_STOP_TIMEOUT:-15}
if [[ -n "${JAVA_HOME:-}" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi

log() { printf 'testbed: %s\n' "$*" >&2; }
die() { printf 'testbed: error: %s\n' "$*" >&2; exit 1; }

usage() {
  cat >&2 <<'EOF'
usage: testbed.sh up [--brokers N] [--security plaintext|sasl_ssl] [--log-dirs D] [--authorizer]
                     [--dynamic-quorum]
       testbed.sh down
       testbed.sh stop-broker ID [--kill]
       testbed.sh start-broker ID
       testbed.sh start-controller ID
       testbed.sh status
       testbed.sh env
       testbed.sh apache TOOL [ARGS...]
       testbed.sh trogdor up [--agents N] | down | kill-agent NAME
       testbed.sh schema-registry up | down | build
state dir: $KBOX_TESTBED_DIR (default ${TMPDIR:-/tmp}/kbox-testbed-$(id -u))
EOF
  exit 2
}

# ------------------------------------------------------------------ jars

# maven_fetch CACHE WHAT GLOBS DEPS makes sure CACHE/lib holds the runtime
# jars of the <dependency> lines DEPS, fetched once with mvn (concurrent
# fetches of the same CACHE are serialized); each of the space-separated
# GLOBS must match a fetched jar. WHAT names them in errors. Quiet unless
# it fails.
maven_fetch() {
  local cache=$1 what=$2 globs=$3 deps=$4
  [[ -f "$cache/.complete" ]] && return 0
  command -v mvn >/dev/null 2>&1 || die "mvn not found (needed once to fetch the $what jars)"
  mkdir -p "$cache"
  (
    exec 8>"$cache/.lock"
    flock 8
    [[ -f "$cache/.complete" ]] && exit 0
    work=$(mktemp -d "$cache/fetch.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kbox.testbed</groupId>
  <artifactId>testbed-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
$deps
  </dependencies>
</project>
EOF
    if ! (cd "$work" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime \
          -DoutputDirectory="$work/lib" >"$work/mvn.log" 2>&1); then
      cat "$work/mvn.log" >&2
      echo "testbed: error: mvn could not fetch $what (see above)" >&2
      exit 1
    fi
    for g in $globs; do
      compgen -G "$work/lib/$g" >/dev/null \
        || { echo "testbed: error: mvn produced no $g in $work/lib ($what)" >&2; exit 1; }
    done
    rm -rf "$cache/lib"
    mv "$work/lib" "$cache/lib"
    cp "$work/pom.xml" "$cache/pom.xml"
    ls "$cache/lib" >"$cache/.complete"
  )
}

# fetch_jars makes sure $LIB_DIR holds the Kafka jars. (Kafka ships
# slf4j-api 1.7.x: the log4j2 binding for it is log4j-slf4j-impl.)
fetch_jars() {
  maven_fetch "$CACHE_DIR" "Apache Kafka $KAFKA_VERSION" 'kafka_2.13-*.jar kafka-tools-*.jar' "\
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>"
}

# tools_log4j writes the equivalent of Kafka's config/tools-log4j2.yaml:
# root WARN to a console appender on stderr. `tools_log4j follow` is the
# same for apache-batch, whose console appender follows System.setErr (each
# case's stderr is captured on its own; without it every log line would go
# to the stderr that was current when log4j was configured).
tools_log4j() {
  local f="$CACHE_DIR/tools-log4j2.properties" extra=""
  if [[ "${1:-}" == follow ]]; then
    f="$CACHE_DIR/tools-log4j2-follow.properties"
    extra="appender.stderr.follow = true"
  fi
  if [[ ! -f "$f" ]]; then
    mkdir -p "$CACHE_DIR"
    # A unique temporary name per writer ($$ is the same in every subshell
    # of one script, and several test beds share the cache): the rename is
    # atomic, so a reader sees the old file, none, or the whole new one.
    local tmp
    tmp=$(mktemp "$f.XXXXXX")
    cat >"$tmp" <<'EOF'
# Equivalent of Apache Kafka's config/tools-log4j2.yaml
name = tools
property.logPattern = [%d] %p %m (%c)%n
appender.stderr.type = Console
appender.stderr.name = STDERR
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = ${logPattern}
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = STDERR
EOF
    [[ -z "$extra" ]] || printf '%s\n' "$extra" >>"$tmp"
    chmod 0644 "$tmp"
    mv -f "$tmp" "$f"
  fi
  printf '%s' "$f"
}

# ------------------------------------------------------------------ apache

tool_class() {
  local t=${1%.sh}
  case "$t" in
    kafka-topics) echo org.apache.kafka.tools.TopicCommand ;;
    kafka-log-dirs) echo org.apache.kafka.tools.LogDirsCommand ;;
    kafka-verifiable-producer) echo org.apache.kafka.tools.VerifiableProducer ;;
    kafka-verifiable-consumer) echo org.apache.kafka.tools.VerifiableConsumer ;;
    kafka-producer-perf-test) echo org.apache.kafka.tools.ProducerPerformance ;;
    kafka-consumer-perf-test) echo org.apache.kafka.tools.ConsumerPerformance ;;
    kafka-share-consumer-perf-test) echo org.apache.kafka.tools.ShareConsumerPerformance ;;
    kafka-configs) echo org.apache.kafka.tools.ConfigCommand ;;
    kafka-console-producer) echo org.apache.kafka.tools.ConsoleProducer ;;
    kafka-console-consumer) echo org.apache.kafka.tools.consumer.ConsoleConsumer ;;
    kafka-console-share-consumer) echo org.apache.kafka.tools.consumer.ConsoleShareConsumer ;;
    kafka-consumer-groups) echo org.apache.kafka.tools.consumer.group.ConsumerGroupCommand ;;
    kafka-share-groups) echo org.apache.kafka.tools.consumer.group.ShareGroupCommand ;;
    kafka-streams-groups) echo org.apache.kafka.tools.streams.StreamsGroupCommand ;;
    kafka-groups) echo org.apache.kafka.tools.GroupsCommand ;;
    kafka-broker-api-versions) echo org.apache.kafka.tools.BrokerApiVersionsCommand ;;
    kafka-e2e-latency) echo org.apache.kafka.tools.EndToEndLatency ;;
    kafka-storage) echo kafka.tools.StorageTool ;;
    kafka-metadata-quorum) echo org.apache.kafka.tools.MetadataQuorumCommand ;;
    kafka-get-offsets) echo org.apache.kafka.tools.GetOffsetShell ;;
    kafka-leader-election) echo org.apache.kafka.tools.LeaderElectionCommand ;;
    kafka-reassign-partitions) echo org.apache.kafka.tools.reassign.ReassignPartitionsCommand ;;
    kafka-acls) echo org.apache.kafka.tools.AclCommand ;;
    kafka-delete-records) echo org.apache.kafka.tools.DeleteRecordsCommand ;;
    kafka-transactions) echo org.apache.kafka.tools.TransactionsCommand ;;
    kafka-features) echo org.apache.kafka.tools.FeatureCommand ;;
    kafka-dump-log) echo org.apache.kafka.tools.DumpLogSegments ;;
    kafka-cluster) echo org.apache.kafka.tools.ClusterTool ;;
    kafka-client-metrics) echo org.apache.kafka.tools.ClientMetricsCommand ;;
    kafka-delegation-tokens) echo org.apache.kafka.tools.DelegationTokenCommand ;;
    kafka-jmx) echo org.apache.kafka.tools.JmxTool ;;
    kafka-replica-verification) echo org.apache.kafka.tools.ReplicaVerificationTool ;;
    *) return 1 ;;
  esac
}

# Tools whose bin/*.sh export KAFKA_HEAP_OPTS=-Xmx512M when it is unset.
tool_heap() {
  case "${1%.sh}" in
    kafka-console-producer|kafka-console-consumer|kafka-console-share-consumer|\
    kafka-producer-perf-test|kafka-consumer-perf-test|kafka-share-consumer-perf-test|\
    kafka-verifiable-producer|kafka-verifiable-consumer) echo -Xmx512M ;;
    *) echo -Xmx256M ;;
  esac
}

cmd_apache() {
  [[ $# -ge 1 ]] || die "usage: testbed.sh apache TOOL [ARGS...]"
  local tool=$1 class
  shift
  if [[ "${tool%.sh}" == kafka-run-class ]]; then
    [[ $# -ge 1 ]] || die "usage: testbed.sh apache kafka-run-class CLASS [ARGS...]"
    class=$1
    shift
  else
    class=$(tool_class "$tool") || die "unknown Apache tool '$tool' (use e.g. kafka-topics, or kafka-run-class CLASS)"
  fi
  fetch_jars
  if [[ -n "${KBOX_TESTBED_JVM_LOG:-}" && -z "${KBOX_TESTBED_IN_BATCH:-}" ]]; then
    printf 'apache %s\n' "${tool%.sh}" >>"$KBOX_TESTBED_JVM_LOG"
  fi
  local log4j heap perf log4j_opts
  log4j=$(tools_log4j)
  heap=${KAFKA_HEAP_OPTS:-$(tool_heap "$tool")}
  perf=${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true}
  log4j_opts=${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=$log4j}
  # Word splitting of the option strings is intended (as in kafka-run-class.sh).
  # shellcheck disable=SC2086
  exec "$JAVA" $heap $perf -Dkafka.logs.dir="$CACHE_DIR/logs" $log4j_opts \
    -cp "$LIB_DIR/*" ${KAFKA_OPTS:-} "$class" "$@"
}

# cmd_apache_batch runs TOOL's main class once per line of FILE in one JVM
# (ApacheBatch.java beside this script): tab-separated arguments per line;
# per case "@@case EXIT", then stdout and stderr, each base64 on one line.
cmd_apache_batch() {
  [[ $# -eq 2 ]] || die "usage: testbed.sh apache-batch TOOL FILE"
  local class
  class=$(tool_class "$1") || die "unknown Apache tool '$1' (use e.g. kafka-topics)"
  [[ -r "$2" ]] || die "cannot read $2"
  if [[ -n "${KBOX_TESTBED_JVM_LOG:-}" ]]; then
    printf 'apache-batch %s %d\n' "${1%.sh}" "$(wc -l <"$2")" >>"$KBOX_TESTBED_JVM_LOG"
  fi
  KAFKA_LOG4J_OPTS=${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=$(tools_log4j follow)} \
    KBOX_TESTBED_IN_BATCH=1 KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:-$(tool_heap "$1")} \
    KAFKA_OPTS="-Djava.security.manager=allow ${KAFKA_OPTS:-}" \
    cmd_apache kafka-run-class "$(dirname "$(readlink -f "$0")")/ApacheBatch.java" "$class" "$2"
}

# ------------------------------------------------------------------ state helpers

load_state() {
  [[ -f "$TB/cluster.env" ]] || return 1
  # shellcheck disable=SC1091
  source "$TB/cluster.env"
}

# node_pid ID prints the PID of node ID if that JVM is alive (checked against
# its command line, so a recycled PID is never mistaken for it).
node_pid() {
  local id=$1 pid cmdline
  [[ -f "$TB/n$id/pid" ]] || return 1
  pid=$(<"$TB/n$id/pid")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmdline" == *"$TB/n$id/server.properties"* ]] || return 1
  printf '%s' "$pid"
}

pid_alive() {
  local pid=$1 state
  [[ -r "/proc/$pid/stat" ]] || return 1
  state=$(sed -E 's/^.*\) (.).*$/\1/' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ "$state" != Z && "$state" != X ]]
}

running_nodes() {
  local d id
  for d in "$TB"/n*/; do
    [[ -d "$d" ]] || continue
    id=${d%/}; id=${id##*/n}
    [[ "$id" =~ ^[0-9]+$ ]] || continue
    node_pid "$id" >/dev/null && printf '%s ' "$id"
  done
  return 0
}

# stop_pids SIG TIMEOUT PID...: send SIG, wait up to TIMEOUT s, then SIGKILL.
stop_pids() {
  local sig=$1 timeout=$2 pid left deadline
  shift 2
  [[ $# -gt 0 ]] || return 0
  kill "-$sig" "$@" 2>/dev/null || true
  deadline=$((SECONDS + timeout))
  while :; do
    left=()
    for pid in "$@"; do pid_alive "$pid" && left+=("$pid"); done
    [[ ${#left[@]} -eq 0 ]] && return 0
    if ((SECONDS >= deadline)); then
      log "PIDs ${left[*]} still alive after ${timeout}s, sending SIGKILL"
      kill -KILL "${left[@]}" 2>/dev/null || true
      sleep 0.2
      return 0
    fi
    sleep 0.2
  done
}

# lock serializes state-changing commands on one state dir. The JVMs are
# started with fd 9 closed so that they never hold it.
lock() {
  mkdir -p "$TB"
  exec 9>"$TB/.lock"
  flock -w 300 9 || die "could not lock $TB/.lock"
}

build_tbtool() {
  mkdir -p "$TB/bin"
  command -v go >/dev/null 2>&1 || die "go not found (needed to build the test-bed helper)"
  if ! (cd "$REPO_ROOT" && go build -o "$TB/bin/tbtool" ./test/integration/tbtool) >&2; then
    die "go build ./test/integration/tbtool failed"
  fi
}

# start_node ID: launch the JVM of node ID in the background, record its PID.
start_node() {
  local id=$1 nd="$TB/n$1"
  mkdir -p "$nd" "$TB/tmp"
  # shellcheck disable=SC2086
  nohup "$JAVA" ${KBOX_TESTBED_HEAP_OPTS:--Xms128m -Xmx512m} \
    -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true \
    -Djava.io.tmpdir="$TB/tmp" -DZstdTempFolder="$TB/tmp" -Dorg.xerial.snappy.tempdir="$TB/tmp" \
    -Dkafka.logs.dir="$nd" -Dlog4j2.configurationFile="file:$TB/log4j2.properties" \
    ${KBOX_TESTBED_JVM_OPTS:-} \
    -cp "$LIB_DIR/*" kafka.Kafka "$nd/server.properties" \
    </dev/null >>"$nd/stdout.log" 2>&1 9>&- &
  echo $! >"$nd/pid"
  disown $! 2>/dev/null || true # no "Killed" job notices from this shell
}

dump_logs() {
  local id f
  for ((id = 1; id <= ${BROKERS:-0}; id++)); do
    for f in "$TB/n$id/stdout.log" "$TB/n$id/server.log"; do
      if [[ -s "$f" ]]; then
        echo "----- tail of $f" >&2
        grep -E 'ERROR|FATAL|Exception|Caused by' "$f" | tail -n 15 >&2 || true
        tail -n 10 "$f" >&2
      fi
    done
  done
}

print_env() {
  cat "$TB/env"
}

# ------------------------------------------------------------------ up

# format_snapshot TBTOOL [FORMAT ARGS...] prints the path of the bootstrap
# snapshot that `kafka-storage format` writes for a static quorum with these
# arguments (the --add-scram credentials): the feature levels and the SCRAM
# records, no ids and no ports, so the same for every node of every bed. It
# is made once per machine, Kafka version and arguments, by one format in a
# scratch dir, and renamed into the jar cache (safe under concurrent beds:
# a loser's rename replaces an identical file).
format_snapshot() {
  local tbtool=$1 key dir snap work
  shift
  key=$(printf '%s\n' "$KAFKA_VERSION" "$@" | sha256sum | cut -c1-16)
  dir="$CACHE_DIR/format/$key"
  snap="$dir/bootstrap.checkpoint"
  if [[ ! -s "$snap" ]]; then
    mkdir -p "$dir" || return 1
    work=$(mktemp -d "$dir/work.XXXXXX") || return 1
    printf '%s\n' "process.roles=broker,controller" "node.id=1" \
      "controller.quorum.voters=1@127.0.0.1:9093" \
      "listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093" \
      "controller.listener.names=CONTROLLER" "log.dirs=$work/data" >"$work/server.properties"
    if ! "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true \
      -Djava.io.tmpdir="$TB/tmp" -Dlog4j2.configurationFile="$(tools_log4j)" \
      -cp "$LIB_DIR/*" kafka.tools.StorageTool format -t "$("$tbtool" uuid)" \
      -c "$work/server.properties" "$@" </dev/null >"$work/format.log" 2>&1 9>&-; then
      cat "$work/format.log" >&2
      rm -rf "$work"
      return 1
    fi
    if ! { cp "$work/data/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint" "$work/snap" &&
      mv -f "$work/snap" "$snap"; }; then
      rm -rf "$work"
      return 1
    fi
    rm -rf "$work"
    log "made the format snapshot of Kafka $KAFKA_VERSION in $dir"
  fi
  printf '%s\n' "$snap"
}

# format_nodes TBTOOL [FORMAT ARGS...] formats every node of this bed as
# `kafka-storage format -t $CLUSTER_ID` does for a static quorum, without a
# JVM per node: each log dir gets its meta.properties (this bed's cluster
# id, the node id, a fresh directory id) and the first (the metadata dir)
# the bootstrap snapshot (format_snapshot).
format_nodes() {
  local tbtool=$1 snap id d i=0 ids dirs
  snap=$(format_snapshot "$@") || return 1
  mapfile -t ids < <("$tbtool" uuid $((BROKERS * LOG_DIRS)))
  [[ ${#ids[@]} -eq $((BROKERS * LOG_DIRS)) ]] || return 1
  for ((id = 1; id <= BROKERS; id++)); do
    IFS=',' read -r -a dirs <<<"$(log_dirs "$id")"
    for d in "${dirs[@]}"; do
      mkdir -p "$d" || return 1
      printf '#\n#%s\nnode.id=%s\ndirectory.id=%s\nversion=1\ncluster.id=%s\n' \
        "$(date '+%a %b %d %H:%M:%S %Z %Y')" "$id" "${ids[i++]}" "$CLUSTER_ID" >"$d/meta.properties" || return 1
    done
    mkdir -p "${dirs[0]}/__cluster_metadata-0" &&
      cp "$snap" "${dirs[0]}/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint" || return 1
  done
}

# storage_format ID [FORMAT ARGS...] runs `kafka-storage format -t
# $CLUSTER_ID -c nID/server.properties ARGS` in a JVM of its own, its output
# in nID/format.log (shown on failure).
storage_format() {
  local id=$1 nd="$TB/n$1"
  shift
  if ! "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true \
    -Djava.io.tmpdir="$TB/tmp" -Dlog4j2.configurationFile="$(tools_log4j)" \
    -cp "$LIB_DIR/*" kafka.tools.StorageTool format -t "$CLUSTER_ID" \
    -c "$nd/server.properties" "$@" </dev/null >"$nd/format.log" 2>&1 9>&-; then
    cat "$nd/format.log" >&2
    return 1
  fi
}

# format_nodes_dynamic TBTOOL [FORMAT ARGS...] formats every node for a
# dynamic quorum of all of them (--initial-controllers with a fresh
# directory id per node), the JVMs in parallel.
format_nodes_dynamic() {
  local tbtool=$1 id dirids initial="" pids=() rc=0
  shift
  mapfile -t dirids < <("$tbtool" uuid "$BROKERS")
  [[ ${#dirids[@]} -eq $BROKERS ]] || return 1
  for ((id = 1; id <= BROKERS; id++)); do
    initial+="${initial:+,}$id@127.0.0.1:${PORT_CTRL[$id]}:${dirids[id - 1]}"
  done
  for ((id = 1; id <= BROKERS; id++)); do
    storage_format "$id" --initial-controllers "$initial" "$@" &
    pids+=($!)
  done
  for id in "${pids[@]}"; do wait "$id" || rc=1; done
  return $rc
}

UP_PIDS=()
UP_HELPERS=()
up_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ $rc -ne 0 ]]; then
    if [[ ${#UP_HELPERS[@]} -gt 0 ]]; then
      kill -TERM "${UP_HELPERS[@]}" 2>/dev/null || true
    fi
    dump_logs || true
    if [[ ${#UP_PIDS[@]} -gt 0 ]]; then
      log "up failed: stopping the JVMs it started (PIDs ${UP_PIDS[*]})"
      stop_pids KILL 5 "${UP_PIDS[@]}"
    fi
    rm -f "$TB/cluster.env" "$TB/env" "$TB/env.tmp" "$TB"/n*/pid
    log "up failed; logs are kept in $TB"
  fi
  exit $rc
}

# log_dirs ID: the comma-separated log.dirs of node ID (LOG_DIRS of them).
log_dirs() {
  local out="$TB/n$1/data" d
  for ((d = 2; d <= LOG_DIRS; d++)); do out+=",$TB/n$1/data$d"; done
  printf '%s' "$out"
}

write_server_props() {
  local id=$1 f="$TB/n$1/server.properties" listeners advertised protomap i
  local rf=$((BROKERS < 3 ? BROKERS : 3))
  local isr=$((rf >= 3 ? 2 : 1))
  listeners="PLAINTEXT://127.0.0.1:${PORT_PLAIN[$id]},CONTROLLER://127.0.0.1:${PORT_CTRL[$id]}"
  advertised="PLAINTEXT://127.0.0.1:${PORT_PLAIN[$id]}"
  protomap="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
  if [[ "$SECURITY" == sasl_ssl ]]; then
    listeners+=",SASL_SSL://127.0.0.1:${PORT_SASL[$id]},SSL://127.0.0.1:${PORT_SSL[$id]}"
    advertised+=",SASL_SSL://127.0.0.1:${PORT_SASL[$id]},SSL://127.0.0.1:${PORT_SSL[$id]}"
    protomap+=",SASL_SSL:SASL_SSL,SSL:SSL"
  fi
  {
    echo "# generated by test/integration/testbed.sh"
    echo "process.roles=broker,controller"
    echo "node.id=$id"
    if [[ "$DYNAMIC" == 1 ]]; then
      echo "controller.quorum.bootstrap.servers=$(join_addrs PORT_CTRL)"
    else
      echo "controller.quorum.voters=$VOTERS"
    fi
    echo "listeners=$listeners"
    echo "advertised.listeners=$advertised"
    echo "listener.security.protocol.map=$protomap"
    echo "controller.listener.names=CONTROLLER"
    echo "inter.broker.listener.name=PLAINTEXT"
    echo "log.dirs=$(log_dirs "$id")"
    echo
    echo "# internal topics: RF min(N,3)"
    echo "offsets.topic.replication.factor=$rf"
    echo "offsets.topic.num.partitions=10"
    echo "transaction.state.log.replication.factor=$rf"
    echo "transaction.state.log.min.isr=$isr"
    echo "transaction.state.log.num.partitions=10"
    echo "share.coordinator.state.topic.replication.factor=$rf"
    echo "share.coordinator.state.topic.min.isr=$isr"
    echo "share.coordinator.state.topic.num.partitions=10"
    echo "default.replication.factor=1"
    echo "num.partitions=1"
    echo "auto.create.topics.enable=false"
    echo
    echo "# fast tests"
    echo "group.initial.rebalance.delay.ms=0"
    echo "broker.heartbeat.interval.ms=1000"
    echo "broker.session.timeout.ms=6000"
    echo "replica.lag.time.max.ms=10000"
    echo "num.network.threads=2"
    echo "num.io.threads=4"
    echo "num.recovery.threads.per.data.dir=1"
    echo "log.cleaner.dedupe.buffer.size=16777216"
    if [[ "$SECURITY" == sasl_ssl ]]; then
      echo
      echo "# SASL_SSL (PLAIN, SCRAM) and SSL (mTLS) listeners"
      echo "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"
      echo "listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\" user_alice=\"alice-secret\";"
      echo "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
      echo "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
      echo "ssl.keystore.type=PEM"
      echo "ssl.keystore.location=$TB/tls/broker.pem"
      echo "ssl.truststore.type=PEM"
      echo "ssl.truststore.location=$TB/tls/ca.pem"
      echo "listener.name.ssl.ssl.client.auth=required"
      echo "# delegation tokens (a test-bed key, the same on every node)"
      echo "delegation.token.secret.key=kbox-testbed-delegation-token-key"
    fi
    if [[ "$AUTHORIZER" == 1 ]]; then
      echo
      echo "# ACLs (up --authorizer): the admin principal of each listener is a super user"
      echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
      echo "allow.everyone.if.no.acl.found=false"
      echo "super.users=User:ANONYMOUS;User:admin"
    fi
    if [[ -n "${KBOX_TESTBED_SERVER_PROPS:-}" ]]; then
      echo
      echo "# KBOX_TESTBED_SERVER_PROPS"
      printf '%s\n' "$KBOX_TESTBED_SERVER_PROPS"
    fi
  } >"$f"
}

write_log4j() {
  cat >"$TB/log4j2.properties" <<'EOF'
# Broker logging: everything at INFO to ${sys:kafka.logs.dir}/server.log.
name = testbed-broker
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = WARN
EOF
}

join_addrs() { # join_addrs PORTARRAYNAME
  local -n ports=$1
  local out="" id
  for ((id = 1; id <= BROKERS; id++)); do
    out+="${out:+,}127.0.0.1:${ports[$id]}"
  done
  printf '%s' "$out"
}

cmd_up() {
  local brokers=1 security=plaintext logdirs=1 authorizer=0 dynamic=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --authorizer) authorizer=1; shift ;;
      --dynamic-quorum) dynamic=1; shift ;;
      --brokers) [[ $# -ge 2 ]] || usage; brokers=$2; shift 2 ;;
      --brokers=*) brokers=${1#*=}; shift ;;
      --security) [[ $# -ge 2 ]] || usage; security=$2; shift 2 ;;
      --security=*) security=${1#*=}; shift ;;
      --log-dirs) [[ $# -ge 2 ]] || usage; logdirs=$2; shift 2 ;;
      --log-dirs=*) logdirs=${1#*=}; shift ;;
      *) die "up: unknown argument '$1'" ;;
    esac
  done
  [[ "$brokers" =~ ^[1-9][0-9]?$ ]] || die "up: --brokers must be a number from 1 to 99"
  [[ "$logdirs" =~ ^[1-9]$ ]] || die "up: --log-dirs must be a number from 1 to 9"
  security=${security,,}
  [[ "$security" == plaintext || "$security" == sasl_ssl ]] || die "up: --security must be plaintext or sasl_ssl"

  lock
  local running
  running=$(running_nodes)
  if [[ -n "$running" ]]; then
    die "a test-bed cluster is already running in $TB (nodes: ${running% }); run 'KBOX_TESTBED_DIR=$TB $0 down' first or use another KBOX_TESTBED_DIR"
  fi

  local t0=$SECONDS
  trap up_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  # Fresh state (keep nothing from an earlier cluster in this dir).
  rm -rf "$TB"/n[0-9]* "$TB/tmp" "$TB/tls" "$TB/env" "$TB/cluster.env" "$TB/plaintext-bootstrap" "$TB/controller-bootstrap" \
    "$TB/ssl-bootstrap" "$TB/client.properties" "$TB/ssl-client.properties" "$TB/log4j2.properties"
  mkdir -p "$TB/tmp"
  touch "$TB/.kbox-testbed"

  BROKERS=$brokers
  SECURITY=$security
  LOG_DIRS=$logdirs
  AUTHORIZER=$authorizer
  DYNAMIC=$dynamic
  log "starting $BROKERS-node Apache Kafka $KAFKA_VERSION ($SECURITY) in $TB"
  fetch_jars
  build_tbtool
  local tbtool="$TB/bin/tbtool"

  local per=2 nports id i
  [[ "$SECURITY" == sasl_ssl ]] && per=4
  nports=$((BROKERS * per))
  local ports
  mapfile -t ports < <("$tbtool" freeports "$nports")
  [[ ${#ports[@]} -eq $nports ]] || die "could not allocate $nports free ports"
  PORT_PLAIN=() PORT_CTRL=() PORT_SASL=() PORT_SSL=()
  i=0
  for ((id = 1; id <= BROKERS; id++)); do
    PORT_PLAIN[id]=${ports[i++]}
    PORT_CTRL[id]=${ports[i++]}
    if [[ "$SECURITY" == sasl_ssl ]]; then
      PORT_SASL[id]=${ports[i++]}
      PORT_SSL[id]=${ports[i++]}
    fi
  done
  VOTERS=""
  for ((id = 1; id <= BROKERS; id++)); do
    VOTERS+="${VOTERS:+,}$id@127.0.0.1:${PORT_CTRL[$id]}"
  done
  CLUSTER_ID=$("$tbtool" uuid)

  if [[ "$SECURITY" == sasl_ssl ]]; then
    "$tbtool" certs "$TB/tls"
  fi
  write_log4j
  for ((id = 1; id <= BROKERS; id++)); do
    mkdir -p "$TB/n$id"
    write_server_props "$id"
  done

  # Format all nodes with the same cluster id (format_nodes).
  local scram=()
  if [[ "$SECURITY" == sasl_ssl ]]; then
    local u
    for u in admin:admin-secret alice:alice-secret; do
      scram+=(--add-scram "SCRAM-SHA-256=[name=${u%%:*},password=${u#*:}]")
      scram+=(--add-scram "SCRAM-SHA-512=[name=${u%%:*},password=${u#*:}]")
    done
  fi
  if [[ "$DYNAMIC" == 1 ]]; then
    format_nodes_dynamic "$tbtool" "${scram[@]}" || die "kafka-storage format failed"
  else
    format_nodes "$tbtool" "${scram[@]}" || die "kafka-storage format failed"
  fi
  log "formatted $BROKERS node(s) (cluster id $CLUSTER_ID) after $((SECONDS - t0))s"

  # Bootstrap strings and client files.
  local plain_bs sasl_bs="" ssl_bs=""
  plain_bs=$(join_addrs PORT_PLAIN)
  printf '%s\n' "$plain_bs" >"$TB/plaintext-bootstrap"
  {
    if [[ "$SECURITY" == sasl_ssl ]]; then
      sasl_bs=$(join_addrs PORT_SASL)
      ssl_bs=$(join_addrs PORT_SSL)
      printf '%s\n' "$ssl_bs" >"$TB/ssl-bootstrap"
      cat >"$TB/client.properties" <<EOF
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="admin-secret";
ssl.truststore.type=PEM
ssl.truststore.location=$TB/tls/ca.pem
EOF
      cat >"$TB/ssl-client.properties" <<EOF
security.protocol=SSL
ssl.keystore.type=PEM
ssl.keystore.location=$TB/tls/client.pem
ssl.truststore.type=PEM
ssl.truststore.location=$TB/tls/ca.pem
EOF
      printf 'export KAFKA_BOOTSTRAP=%s\n' "$sasl_bs"
      printf 'export KAFKA_CLIENT_PROPERTIES=%q\n' "$TB/client.properties"
    else
      printf 'export KAFKA_BOOTSTRAP=%s\n' "$plain_bs"
    fi
  } >"$TB/env.tmp"

  # Start the JVMs.
  for ((id = 1; id <= BROKERS; id++)); do
    start_node "$id"
    UP_PIDS+=("$(<"$TB/n$id/pid")")
  done
  log "started JVMs (PIDs ${UP_PIDS[*]}); waiting for $BROKERS broker(s) to register"

  local pidlist
  pidlist=$(IFS=,; echo "${UP_PIDS[*]}")
  # Helpers run in the background and are waited for, so that a signal to
  # this script is handled at once (and the JVMs are stopped).
  "$tbtool" wait --bootstrap "$plain_bs" --brokers "$BROKERS" --timeout "${READY_TIMEOUT}s" \
    --pids "$pidlist" --quiet 9>&- &
  UP_HELPERS=($!)
  wait "${UP_HELPERS[0]}" || die "the cluster did not become ready"
  if [[ "$SECURITY" == sasl_ssl ]]; then
    # The SASL_SSL listener (and the SCRAM credentials) must work too.
    "$tbtool" wait --bootstrap "$sasl_bs" --brokers "$BROKERS" --timeout 30s \
      --props "$TB/client.properties" --pids "$pidlist" --quiet 9>&- &
    UP_HELPERS=($!)
    wait "${UP_HELPERS[0]}" || die "the SASL_SSL listeners did not become ready"
  fi
  UP_HELPERS=()

  {
    printf 'BROKERS=%q\nSECURITY=%q\nCLUSTER_ID=%q\nKAFKA_VERSION=%q\nVOTERS=%q\nAUTHORIZER=%q\nDYNAMIC=%q\n' \
      "$BROKERS" "$SECURITY" "$CLUSTER_ID" "$KAFKA_VERSION" "$VOTERS" "$AUTHORIZER" "$DYNAMIC"
    printf 'PLAINTEXT_BOOTSTRAP=%q\nSASL_SSL_BOOTSTRAP=%q\nSSL_BOOTSTRAP=%q\n' "$plain_bs" "$sasl_bs" "$ssl_bs"
    printf 'PORT_PLAIN=(%s)\n' "$(for ((id = 1; id <= BROKERS; id++)); do printf '[%d]=%d ' "$id" "${PORT_PLAIN[$id]}"; done)"
    printf 'PORT_CTRL=(%s)\n' "$(for ((id = 1; id <= BROKERS; id++)); do printf '[%d]=%d ' "$id" "${PORT_CTRL[$id]}"; done)"
    printf 'CONTROLLER_BOOTSTRAP=%q\n' "$(join_addrs PORT_CTRL)"
    if [[ "$SECURITY" == sasl_ssl ]]; then
      printf 'PORT_SASL=(%s)\n' "$(for ((id = 1; id <= BROKERS; id++)); do printf '[%d]=%d ' "$id" "${PORT_SASL[$id]}"; done)"
      printf 'PORT_SSL=(%s)\n' "$(for ((id = 1; id <= BROKERS; id++)); do printf '[%d]=%d ' "$id" "${PORT_SSL[$id]}"; done)"
    fi
  } >"$TB/cluster.env"
  join_addrs PORT_CTRL >"$TB/controller-bootstrap"
  mv "$TB/env.tmp" "$TB/env"
  trap - EXIT INT TERM
  log "cluster ready after $((SECONDS - t0))s"
  print_env
}

# ------------------------------------------------------------------ down / stop / start

cmd_down() {
  [[ $# -eq 0 ]] || die "down takes no arguments"
  if [[ ! -d "$TB" ]]; then
    log "nothing to stop in $TB"
    return 0
  fi
  lock
  local id pid pids=() ids=()
  for d in "$TB"/n*/; do
    [[ -d "$d" ]] || continue
    id=${d%/}; id=${id##*/n}
    [[ "$id" =~ ^[0-9]+$ ]] || continue
    if pid=$(node_pid "$id"); then
      pids+=("$pid")
      ids+=("$id")
    fi
  done
  if [[ ${#pids[@]} -gt 0 ]]; then
    log "stopping nodes ${ids[*]} (PIDs ${pids[*]})"
    stop_pids TERM "$STOP_TIMEOUT" "${pids[@]}"
  fi
  trogdor_down
  schema_registry_down
  # Remove only what this script creates, then the dir itself if it is empty.
  rm -rf "$TB"/n[0-9]* "$TB/tmp" "$TB/tls" "$TB/bin" "$TB/env" "$TB/env.tmp" "$TB/cluster.env" "$TB/controller-bootstrap" \
    "$TB/plaintext-bootstrap" "$TB/ssl-bootstrap" "$TB/client.properties" "$TB/ssl-client.properties" \
    "$TB/log4j2.properties" "$TB/.kbox-testbed"
  rm -f "$TB/.lock"
  rmdir "$TB" 2>/dev/null || true
  log "down: $TB cleaned up"
}

check_node_id() {
  load_state || die "no test-bed cluster in $TB"
  [[ "$1" =~ ^[0-9]+$ ]] || die "no node $1 (nodes are 1..$BROKERS)"
  (($1 >= 1 && $1 <= BROKERS)) || [[ -f "$TB/n$1/controller-only" ]] || die "no node $1 (nodes are 1..$BROKERS)"
}

cmd_stop_broker() {
  local id="" kill=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --kill) kill=1; shift ;;
      -*) die "stop-broker: unknown flag '$1'" ;;
      *) [[ -z "$id" ]] || die "stop-broker: one ID only"; id=$1; shift ;;
    esac
  done
  [[ -n "$id" ]] || die "usage: testbed.sh stop-broker ID [--kill]"
  lock
  check_node_id "$id"
  local pid
  if ! pid=$(node_pid "$id"); then
    log "node $id is not running"
    rm -f "$TB/n$id/pid"
    return 0
  fi
  if ((kill)); then
    log "killing node $id (PID $pid) with SIGKILL"
    stop_pids KILL 5 "$pid"
  else
    log "stopping node $id (PID $pid) with SIGTERM"
    local t0=$SECONDS
    stop_pids TERM "$STOP_TIMEOUT" "$pid"
    log "node $id stopped after $((SECONDS - t0))s"
  fi
  rm -f "$TB/n$id/pid"
}

cmd_start_broker() {
  [[ $# -eq 1 ]] || die "usage: testbed.sh start-broker ID"
  local id=$1 pid
  lock
  check_node_id "$id"
  [[ -x "$TB/bin/tbtool" ]] || build_tbtool
  fetch_jars
  if pid=$(node_pid "$id"); then
    log "node $id is already running (PID $pid); waiting for it to be registered"
  else
    start_node "$id"
    pid=$(<"$TB/n$id/pid")
    log "started node $id (PID $pid); waiting for it to register"
  fi
  local t0=$SECONDS
  if ! "$TB/bin/tbtool" wait --bootstrap "127.0.0.1:${PORT_PLAIN[$id]}" --ids "$id" \
      --timeout "${READY_TIMEOUT}s" --pids "$pid" --quiet; then
    BROKERS=$id dump_logs
    die "node $id did not come back (it is left as it is; see $TB/n$id/server.log)"
  fi
  log "node $id registered after $((SECONDS - t0))s"
}

# cmd_start_controller ID: start (format first, if new) the controller-only
# node ID of a dynamic quorum; wait until it is a voter or an observer.
cmd_start_controller() {
  [[ $# -eq 1 ]] || die "usage: testbed.sh start-controller ID"
  local id=$1 nd="$TB/n$1" pid port
  lock
  load_state || die "no test-bed cluster in $TB"
  [[ "${DYNAMIC:-0}" == 1 ]] || die "start-controller needs a dynamic quorum (testbed.sh up --dynamic-quorum)"
  [[ "$id" =~ ^[1-9][0-9]?$ ]] && ((id > BROKERS)) || die "start-controller: ID must be a number from $((BROKERS + 1)) to 99"
  [[ -x "$TB/bin/tbtool" ]] || build_tbtool
  fetch_jars
  if [[ ! -f "$nd/controller-only" ]]; then
    port=$("$TB/bin/tbtool" freeports 1)
    [[ "$port" =~ ^[0-9]+$ ]] || die "could not allocate a free port"
    rm -rf "$nd"
    mkdir -p "$nd"
    {
      echo "# generated by test/integration/testbed.sh start-controller"
      echo "process.roles=controller"
      echo "node.id=$id"
      echo "controller.quorum.bootstrap.servers=$CONTROLLER_BOOTSTRAP"
      echo "listeners=CONTROLLER://127.0.0.1:$port"
      echo "advertised.listeners=CONTROLLER://127.0.0.1:$port"
      echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT"
      echo "controller.listener.names=CONTROLLER"
      echo "log.dirs=$nd/data"
      if [[ "$AUTHORIZER" == 1 ]]; then
        echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
        echo "allow.everyone.if.no.acl.found=false"
        echo "super.users=User:ANONYMOUS;User:admin"
      fi
      if [[ -n "${KBOX_TESTBED_SERVER_PROPS:-}" ]]; then
        printf '%s\n' "$KBOX_TESTBED_SERVER_PROPS"
      fi
    } >"$nd/server.properties"
    storage_format "$id" --no-initial-controllers || { rm -rf "$nd"; die "kafka-storage format of node $id failed"; }
    echo "$port" >"$nd/controller-only"
  fi
  local since=0
  if pid=$(node_pid "$id"); then
    log "controller $id is already running (PID $pid)"
  else
    since=$(date +%s%3N)
    start_node "$id"
    pid=$(<"$nd/pid")
    log "started controller $id (PID $pid); waiting for it to join the quorum"
  fi
  local t0=$SECONDS
  if ! "$TB/bin/tbtool" quorumwait --bootstrap "$PLAINTEXT_BOOTSTRAP" --id "$id" --since "$since" \
      --timeout "${READY_TIMEOUT}s" --pids "$pid"; then
    for f in "$nd/stdout.log" "$nd/server.log"; do
      [[ -s "$f" ]] && tail -n 15 "$f" >&2
    done
    die "controller $id did not join the quorum (it is left as it is; see $nd/server.log)"
  fi
  log "controller $id in the quorum after $((SECONDS - t0))s"
}

cmd_status() {
  if ! load_state; then
    log "no test-bed cluster in $TB"
    return 1
  fi
  local id pid
  for ((id = 1; id <= BROKERS; id++)); do
    if pid=$(node_pid "$id"); then
      printf 'node %d running pid=%s plaintext=127.0.0.1:%s\n' "$id" "$pid" "${PORT_PLAIN[$id]}"
    else
      printf 'node %d stopped plaintext=127.0.0.1:%s\n' "$id" "${PORT_PLAIN[$id]}"
    fi
  done
  local f state
  for f in "$TB"/n*/controller-only; do # start-controller's nodes
    [[ -f "$f" ]] || continue
    id=${f%/controller-only}; id=${id##*/n}
    state=stopped
    pid=$(node_pid "$id") && state="running pid=$pid"
    printf 'node %d %s controller=127.0.0.1:%s\n' "$id" "$state" "$(<"$f")"
  done
}

cmd_env() {
  if ! load_state || [[ ! -f "$TB/env" ]] || [[ -z "$(running_nodes)" ]]; then
    die "no running test-bed cluster in $TB"
  fi
  print_env
}

# ------------------------------------------------------------------ trogdor

TROGDOR_VERSION=${KBOX_TROGDOR_VERSION:-4.3.0}
TROGDOR_CACHE=${KBOX_KAFKA_CACHE:-$HOME/.cache/kbox}/trogdor-$TROGDOR_VERSION
TROGDOR_DIR=$TB/trogdor

# fetch_trogdor_jars makes sure $TROGDOR_CACHE/lib holds the trogdor jar and
# its runtime dependencies.
fetch_trogdor_jars() {
  maven_fetch "$TROGDOR_CACHE" "Trogdor $TROGDOR_VERSION" 'trogdor-*.jar' "\
    <dependency><groupId>org.apache.kafka</groupId><artifactId>trogdor</artifactId><version>$TROGDOR_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>"
}

# trogdor_pid NAME prints the PID of Trogdor process NAME (coordinator or
# agentN) if it is alive, checked against its command line.
trogdor_pid() {
  local name=$1 pid cmdline
  [[ -f "$TROGDOR_DIR/$name.pid" ]] || return 1
  pid=$(<"$TROGDOR_DIR/$name.pid")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmdline" == *"$TROGDOR_DIR/trogdor.conf -n $name"* ]] || return 1
  printf '%s' "$pid"
}

trogdor_pids() {
  local f name
  for f in "$TROGDOR_DIR"/*.pid; do
    [[ -f "$f" ]] || continue
    name=${f##*/}; name=${name%.pid}
    trogdor_pid "$name" || true
    printf ' '
  done
}

trogdor_start() {
  local name=$1 class=$2
  # shellcheck disable=SC2086
  nohup "$JAVA" -Xms64m -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true \
    -Djava.io.tmpdir="$TB/tmp" -Dlog4j2.configurationFile="file:$TROGDOR_DIR/log4j2.properties" \
    -cp "$TROGDOR_CACHE/lib/*" "$class" -c "$TROGDOR_DIR/trogdor.conf" -n "$name" \
    </dev/null >>"$TROGDOR_DIR/$name.log" 2>&1 9>&- &
  echo $! >"$TROGDOR_DIR/$name.pid"
  UP_PIDS+=("$!")
  disown $! 2>/dev/null || true
}

# trogdor_wait PORT PID: wait until the REST server on PORT accepts
# connections (bash's /dev/tcp: no curl needed) or PID dies.
trogdor_wait() {
  local port=$1 pid=$2 deadline=$((SECONDS + READY_TIMEOUT))
  while ((SECONDS < deadline)); do
    pid_alive "$pid" || return 1
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.3
  done
  return 1
}

# On a failed `trogdor up`: kill what it started (never the Kafka nodes).
trogdor_up_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ $rc -ne 0 && ${#UP_PIDS[@]} -gt 0 ]]; then
    log "trogdor up failed: stopping the JVMs it started (PIDs ${UP_PIDS[*]}); logs are in $TROGDOR_DIR"
    stop_pids KILL 5 "${UP_PIDS[@]}"
    rm -f "$TROGDOR_DIR"/*.pid "$TROGDOR_DIR/env"
  fi
  exit $rc
}

trogdor_up() {
  local agents=3
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --agents) [[ $# -ge 2 ]] || die "--agents needs a value"; agents=$2; shift 2 ;;
      --agents=*) agents=${1#*=}; shift ;;
      *) die "trogdor up: unknown argument '$1'" ;;
    esac
  done
  [[ "$agents" =~ ^[0-9]+$ ]] && ((agents >= 1 && agents <= 32)) || die "--agents must be 1..32"
  lock
  if [[ -n "$(trogdor_pids | tr -d ' ')" ]]; then
    die "Trogdor already runs in $TROGDOR_DIR (testbed.sh trogdor down first)"
  fi
  fetch_trogdor_jars
  build_tbtool
  rm -rf "$TROGDOR_DIR"
  mkdir -p "$TROGDOR_DIR" "$TB/tmp"
  local ports i names=() conf
  mapfile -t ports < <("$TB/bin/tbtool" freeports $((agents + 1)))
  [[ ${#ports[@]} -eq $((agents + 1)) ]] || die "could not allocate $((agents + 1)) free ports"
  conf="{\"platform\": \"org.apache.kafka.trogdor.basic.BasicPlatform\", \"nodes\": {"
  conf+="\"coordinator\": {\"hostname\": \"127.0.0.1\", \"trogdor.coordinator.port\": ${ports[0]}}"
  for ((i = 1; i <= agents; i++)); do
    names+=("agent$i")
    conf+=", \"agent$i\": {\"hostname\": \"127.0.0.1\", \"trogdor.agent.port\": ${ports[$i]}}"
  done
  conf+="}}"
  printf '%s\n' "$conf" >"$TROGDOR_DIR/trogdor.conf"
  cat >"$TROGDOR_DIR/log4j2.properties" <<'EOF'
name = trogdor
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
logger.jetty.name = org.eclipse.jetty
logger.jetty.level = WARN
EOF
  UP_PIDS=()
  trap trogdor_up_cleanup EXIT INT TERM
  for ((i = 1; i <= agents; i++)); do
    trogdor_start "agent$i" org.apache.kafka.trogdor.agent.Agent
  done
  trogdor_start coordinator org.apache.kafka.trogdor.coordinator.Coordinator
  for ((i = 1; i <= agents; i++)); do
    trogdor_wait "${ports[$i]}" "$(<"$TROGDOR_DIR/agent$i.pid")" \
      || { tail -n 20 "$TROGDOR_DIR/agent$i.log" >&2; die "Trogdor agent$i did not start (see $TROGDOR_DIR/agent$i.log)"; }
  done
  trogdor_wait "${ports[0]}" "$(<"$TROGDOR_DIR/coordinator.pid")" \
    || { tail -n 20 "$TROGDOR_DIR/coordinator.log" >&2; die "Trogdor coordinator did not start (see $TROGDOR_DIR/coordinator.log)"; }
  trap - EXIT INT TERM
  local IFS=,
  {
    echo "export TROGDOR_COORDINATOR=http://127.0.0.1:${ports[0]}"
    echo "export TROGDOR_AGENTS=${names[*]}"
  } >"$TROGDOR_DIR/env"
  log "Trogdor $TROGDOR_VERSION: coordinator and $agents agents up"
  cat "$TROGDOR_DIR/env"
}

trogdor_down() {
  [[ -d "$TROGDOR_DIR" ]] || return 0
  local pids
  read -r -a pids <<<"$(trogdor_pids)"
  if [[ ${#pids[@]} -gt 0 ]]; then
    log "stopping Trogdor (PIDs ${pids[*]})"
    stop_pids TERM "$STOP_TIMEOUT" "${pids[@]}"
  fi
  rm -rf "$TROGDOR_DIR"
}

cmd_trogdor() {
  [[ $# -ge 1 ]] || die "usage: testbed.sh trogdor up [--agents N] | down | kill-agent NAME"
  local sub=$1 pid
  shift
  case "$sub" in
    up) trogdor_up "$@" ;;
    down)
      [[ $# -eq 0 ]] || die "trogdor down takes no arguments"
      [[ -d "$TB" ]] || return 0
      lock
      trogdor_down
      # bin/ and tmp/ are shared with a Kafka cluster in the same dir.
      [[ -f "$TB/cluster.env" ]] || rm -rf "$TB/bin" "$TB/tmp"
      rm -f "$TB/.lock"
      rmdir "$TB" 2>/dev/null || true
      ;;
    kill-agent)
      [[ $# -eq 1 && "$1" =~ ^agent[0-9]+$ ]] || die "usage: testbed.sh trogdor kill-agent agentN"
      pid=$(trogdor_pid "$1") || die "Trogdor $1 is not running"
      log "killing Trogdor $1 (PID $pid) with SIGKILL"
      stop_pids KILL 5 "$pid"
      ;;
    *) die "unknown trogdor command '$sub' (up, down, kill-agent)" ;;
  esac
}

# ------------------------------------------------------------------ schema registry

# Apicurio Registry (Apache-2.0) serves a Confluent-compatible API under
# /apis/ccompat/v7. Its app module is a library jar: the registry runs once
# it is packaged as a Quarkus application, which build_schema_registry does
# with a generated POM (see docs/schema-registry.md for why this release and
# what the POM works around). SR_QUARKUS_VERSION must be the Quarkus version
# of that Apicurio release (its parent POM's quarkus.version).
SR_VERSION=2.4.2.Final
SR_QUARKUS_VERSION=2.16.4.Final
SR_CACHE=${KBOX_KAFKA_CACHE:-$HOME/.cache/kbox}/apicurio-registry-$SR_VERSION
SR_DIR=$TB/schema-registry
SR_API=/apis/ccompat/v7

# sr_pom prints the POM that packages the registry: its app module with its
# parent's dependency versions (without them Quarkus's BOM brings an okio
# that Wire's protobuf parser cannot use), built by the Quarkus plugin.
#  - com.github.everit-org.json-schema is not on Maven Central; its author
#    publishes the same library as com.github.erosb:everit-json-schema.
#  - apicurio-common-app-components-config-index is a Quarkus extension
#    whose deployment module is not on Maven Central; it only lists the
#    registry's runtime-changeable settings, so it is left out and
#    NoDynamicConfig (sr_shim) stands in for the list it builds (none).
sr_pom() {
  cat <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kbox.testbed</groupId>
  <artifactId>schema-registry</artifactId>
  <version>1</version>
  <packaging>jar</packaging>
  <properties>
    <maven.compiler.source>11</maven.compiler.source>
    <maven.compiler.target>11</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>io.apicurio</groupId>
        <artifactId>apicurio-registry</artifactId>
        <version>$SR_VERSION</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
      <dependency>
        <groupId>io.quarkus</groupId>
        <artifactId>quarkus-bom</artifactId>
        <version>$SR_QUARKUS_VERSION</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>io.apicurio</groupId>
      <artifactId>apicurio-registry-app</artifactId>
      <version>$SR_VERSION</version>
      <exclusions>
        <exclusion><groupId>io.apicurio</groupId><artifactId>apicurio-common-app-components-config-index</artifactId></exclusion>
        <exclusion><groupId>com.github.everit-org.json-schema</groupId><artifactId>org.everit.json.schema</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency>
      <groupId>com.github.erosb</groupId>
      <artifactId>everit-json-schema</artifactId>
      <version>1.14.2</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>io.quarkus</groupId>
        <artifactId>quarkus-maven-plugin</artifactId>
        <version>$SR_QUARKUS_VERSION</version>
        <executions>
          <execution>
            <goals><goal>build</goal></goals>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
EOF
}

sr_shim() {
  cat <<'EOF'
package dev.kbox.testbed;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.List;
import javax.enterprise.inject.Produces;
import javax.inject.Singleton;

/** Stands in for the config-index extension: no runtime-changeable settings. */
public class NoDynamicConfig {
    @Produces
    @Singleton
    DynamicConfigPropertyList dynamicConfigProperties() {
        return new DynamicConfigPropertyList(List.of());
    }
}
EOF
}

# build_schema_registry makes sure $SR_CACHE/app holds the packaged registry
# (registry-runner.jar and lib/), built once with mvn. Concurrent builds of
# the same cache are serialized with a lock; the result is moved into place
# whole and marked complete last, so a reader never sees half of it.
build_schema_registry() {
  [[ -f "$SR_CACHE/.complete" ]] && return 0
  command -v mvn >/dev/null 2>&1 || die "mvn not found (needed once to build the schema registry)"
  mkdir -p "$SR_CACHE"
  (
    exec 8>"$SR_CACHE/.lock"
    flock 8
    [[ -f "$SR_CACHE/.complete" ]] && exit 0
    t0=$SECONDS
    echo "testbed: building Apicurio Registry $SR_VERSION into $SR_CACHE (once; a few minutes)" >&2
    work=$(mktemp -d "$SR_CACHE/build.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/src/main/java/dev/kbox/testbed" "$work/src/main/resources"
    sr_pom >"$work/pom.xml"
    sr_shim >"$work/src/main/java/dev/kbox/testbed/NoDynamicConfig.java"
    # The app jar carries no bean index: have Quarkus index it.
    printf '%s\n' 'quarkus.index-dependency.registry-app.group-id=io.apicurio' \
      'quarkus.index-dependency.registry-app.artifact-id=apicurio-registry-app' \
      >"$work/src/main/resources/application.properties"
    if ! (cd "$work" && mvn -q -B package -DskipTests -Dquarkus.package.type=legacy-jar \
          >"$work/mvn.log" 2>&1); then
      tail -n 60 "$work/mvn.log" >&2
      echo "testbed: error: mvn could not build Apicurio Registry $SR_VERSION (see above)" >&2
      exit 1
    fi
    runner=("$work"/target/*-runner.jar)
    [[ -f "${runner[0]}" && -d "$work/target/lib" ]] \
      || { echo "testbed: error: the registry build left no runner jar and lib/ in $work/target" >&2; exit 1; }
    mkdir "$work/app"
    mv "${runner[0]}" "$work/app/registry-runner.jar"
    mv "$work/target/lib" "$work/app/lib"
    rm -rf "$SR_CACHE/app"
    mv "$work/app" "$SR_CACHE/app"
    cp "$work/pom.xml" "$SR_CACHE/pom.xml"
    ls "$SR_CACHE/app/lib" >"$work/complete"
    mv "$work/complete" "$SR_CACHE/.complete"
    echo "testbed: built Apicurio Registry $SR_VERSION in $((SECONDS - t0))s" >&2
  )
}

# schema_registry_pid prints the PID of the registry of this state dir if it
# is alive, checked against its command line.
schema_registry_pid() {
  local pid cmdline
  [[ -f "$SR_DIR/pid" ]] || return 1
  pid=$(<"$SR_DIR/pid")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmdline" == *"-Dkbox.testbed.registry=$SR_DIR "* ]] || return 1
  printf '%s' "$pid"
}

# On a failed `schema-registry up`: kill what it started.
schema_registry_up_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ $rc -ne 0 ]]; then
    if [[ ${#UP_HELPERS[@]} -gt 0 ]]; then
      kill -TERM "${UP_HELPERS[@]}" 2>/dev/null || true
    fi
    if [[ ${#UP_PIDS[@]} -gt 0 ]]; then
      log "schema-registry up failed: stopping the JVM it started (PID ${UP_PIDS[*]}); its log is $SR_DIR/registry.log"
      stop_pids KILL 5 "${UP_PIDS[@]}"
    fi
    rm -f "$SR_DIR/pid" "$SR_DIR/env"
  fi
  exit $rc
}

schema_registry_up() {
  [[ $# -eq 0 ]] || die "schema-registry up takes no arguments"
  lock
  local pid
  if pid=$(schema_registry_pid); then
    die "a schema registry already runs in $SR_DIR (PID $pid; testbed.sh schema-registry down first)"
  fi
  build_schema_registry
  build_tbtool
  rm -rf "$SR_DIR"
  mkdir -p "$SR_DIR/tmp"
  local port t0=$SECONDS
  port=$("$TB/bin/tbtool" freeports 1)
  [[ "$port" =~ ^[0-9]+$ ]] || die "could not allocate a free port"
  UP_PIDS=()
  UP_HELPERS=()
  trap schema_registry_up_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # C1 only and the serial collector: it starts in about half the time on
  # a busy 2-core machine. The H2 pool is shrunk from its 20 connections.
  # shellcheck disable=SC2086
  nohup "$JAVA" ${KBOX_SCHEMA_REGISTRY_HEAP_OPTS:--Xms64m -Xmx256m} \
    -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dkbox.testbed.registry="$SR_DIR" -Djava.io.tmpdir="$SR_DIR/tmp" -Dvertx.cacheDirBase="$SR_DIR/tmp/vertx" \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
    -Dquarkus.datasource.jdbc.min-size=1 -Dquarkus.datasource.jdbc.initial-size=1 \
    -jar "$SR_CACHE/app/registry-runner.jar" \
    </dev/null >>"$SR_DIR/registry.log" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$SR_DIR/pid"
  UP_PIDS=("$pid")
  disown "$pid" 2>/dev/null || true
  "$TB/bin/tbtool" httpwait --url "http://127.0.0.1:$port$SR_API/subjects" \
    --timeout "${READY_TIMEOUT}s" --pids "$pid" 9>&- &
  UP_HELPERS=($!)
  if ! wait "${UP_HELPERS[0]}"; then
    UP_HELPERS=()
    grep -E 'ERROR|Exception' "$SR_DIR/registry.log" | tail -n 10 >&2 || true
    tail -n 10 "$SR_DIR/registry.log" >&2
    die "the schema registry did not start (see $SR_DIR/registry.log)"
  fi
  UP_HELPERS=()
  trap - EXIT INT TERM
  echo "export KBOX_SCHEMA_REGISTRY=http://127.0.0.1:$port$SR_API" >"$SR_DIR/env"
  log "Apicurio Registry $SR_VERSION up after $((SECONDS - t0))s (PID $pid)"
  cat "$SR_DIR/env"
}

schema_registry_down() {
  [[ -d "$SR_DIR" ]] || return 0
  local pid
  if pid=$(schema_registry_pid); then
    log "stopping the schema registry (PID $pid)"
    stop_pids TERM "$STOP_TIMEOUT" "$pid"
  fi
  rm -rf "$SR_DIR"
}

cmd_schema_registry() {
  [[ $# -ge 1 ]] || die "usage: testbed.sh schema-registry up | down | build"
  local sub=$1
  shift
  case "$sub" in
    up) schema_registry_up "$@" ;;
    down)
      [[ $# -eq 0 ]] || die "schema-registry down takes no arguments"
      [[ -d "$TB" ]] || return 0
      lock
      schema_registry_down
      # bin/ and tmp/ are shared with a Kafka cluster or Trogdor in the same dir.
      [[ -f "$TB/cluster.env" || -d "$TROGDOR_DIR" ]] || rm -rf "$TB/bin" "$TB/tmp"
      rm -f "$TB/.lock"
      rmdir "$TB" 2>/dev/null || true
      ;;
    build)
      [[ $# -eq 0 ]] || die "schema-registry build takes no arguments"
      build_schema_registry
      printf '%s\n' "$SR_CACHE/app"
      ;;
    *) die "unknown schema-registry command '$sub' (up, down, build)" ;;
  esac
}

# ------------------------------------------------------------------ main

[[ $# -ge 1 ]] || usage
cmd=$1
shift
case "$cmd" in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  stop-broker) cmd_stop_broker "$@" ;;
  start-broker) cmd_start_broker "$@" ;;
  start-controller) cmd_start_controller "$@" ;;
  status) cmd_status "$@" ;;
  env) cmd_env "$@" ;;
  apache) cmd_apache "$@" ;;
  apache-batch) cmd_apache_batch "$@" ;;
  trogdor) cmd_trogdor "$@" ;;
  schema-registry) cmd_schema_registry "$@" ;;
  -h|--help|help) usage ;;
  *) log "unknown command '$cmd'"; usage ;;
esac
