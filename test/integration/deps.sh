#!/usr/bin/env bash
# Installs what the real-broker integration tests need when it is missing:
# Java 17+ and Maven (the test bed fetches Kafka's jars with mvn) are required;
# a Kerberos KDC (GSSAPI tests), Chromium (the perf report test), Prometheus
# and promtool (the exporter test), man-db and bash-completion (the package
# test) are installed too, but a failure there only warns: the GSSAPI and
# exporter tests then skip, the report test tries to install Chromium
# itself, and the package test fails naming what is missing.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
updated=""
apt_install() {
  if [ -z "$updated" ]; then $SUDO apt-get update -qq >&2; updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >&2
}

need=()
if ! command -v java >/dev/null 2>&1 || ! java -version 2>&1 | grep -Eq 'version "(1[7-9]|[2-9][0-9])'; then
  need+=(openjdk-17-jdk-headless)
fi
command -v mvn >/dev/null 2>&1 || need+=(maven)
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}" >&2
  apt_install "${need[@]}"
fi

opt=()
command -v krb5kdc >/dev/null 2>&1 || [ -x /usr/sbin/krb5kdc ] || opt+=(krb5-kdc krb5-admin-server krb5-user)
command -v chromium >/dev/null 2>&1 || opt+=(chromium)
# The exporter test scrapes kbox exporter with Debian's Prometheus.
command -v promtool >/dev/null 2>&1 || opt+=(prometheus)
# The package test (test/integration/dist) extracts a .deb, renders man
# pages and runs bash completion as bash-completion loads it.
command -v dpkg-deb >/dev/null 2>&1 || opt+=(dpkg)
command -v man >/dev/null 2>&1 || opt+=(man-db)
[ -f /usr/share/bash-completion/bash_completion ] || opt+=(bash-completion)
if [ ${#opt[@]} -gt 0 ]; then
  echo "deps: installing ${opt[*]}" >&2
  apt_install "${opt[@]}" || echo "deps: warning: could not install ${opt[*]}" >&2
fi

# (capture first: `cmd | head -1` would SIGPIPE the command under pipefail)
jv=$(java -version 2>&1); mv=$(mvn -version 2>&1)
echo "deps: ${jv%%$'\n'*}; ${mv%%$'\n'*}" >&2
