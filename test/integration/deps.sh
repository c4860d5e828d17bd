#!/usr/bin/env bash
# Installs what the real-broker integration tests need when it is missing:
# Java 17+ and Maven (the test bed fetches Kafka's jars with mvn), a Kerberos
# KDC for the GSSAPI tests, and Chromium for the HTML report test.
set -euo pipefail
need=()
if ! command -v java >/dev/null 2>&1 || ! java -version 2>&1 | grep -Eq 'version "(1[7-9]|[2-9][0-9])'; then
  need+=(openjdk-17-jre-headless)
fi
command -v mvn >/dev/null 2>&1 || need+=(maven)
# A real KDC for the GSSAPI (Kerberos) tests.
command -v krb5kdc >/dev/null 2>&1 || need+=(krb5-kdc krb5-admin-server krb5-user)
# Headless Chromium opens the perf sweep's HTML report in its test.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >&2
fi
# (capture first: `cmd | head -1` would SIGPIPE the command under pipefail)
jv=$(java -version 2>&1); mv=$(mvn -version 2>&1)
echo "deps: ${jv%%$'\n'*}; ${mv%%$'\n'*}" >&2
