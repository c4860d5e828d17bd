# kbox — see README.md. The two commands a newcomer needs: `make demo` and `make test`.
GO      ?= go
PREFIX  ?= /usr/local
PKG     := github.com/kboxdev/kbox
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo none)
LDFLAGS := -s -w -X $(PKG)/cmd/app.Version=$(VERSION) -X $(PKG)/cmd/app.Commit=$(COMMIT)
# Integration tests start real Kafka brokers; give them room but bound them.
IT_TIMEOUT ?= 70m

.PHONY: all build test test-unit test-integration soak lint install deps-integration clean demo bench bench-sweep bench-verify bench-mem bench-groups bench-console bench-reassign bench-ui bench-ui-messages bench-exporter bench-status bench-replicas bench-get-offsets dist perf-docs

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/kbox ./cmd/kbox
	@bin/kbox install-links bin >/dev/null

# The README's first command: a guided tour of kbox against an in-process
# playground cluster. Needs nothing but Go.
demo:
	$(GO) run ./cmd/kbox playground --tour

# The README's test command: unit tests, then the real-broker integration
# tests (which fetch Kafka with Maven and start and stop brokers themselves).
test: test-unit test-integration

# Fast tests: no Java needed.
test-unit:
	$(GO) test -race -shuffle=on -count=1 ./...

deps-integration:
	@test/integration/deps.sh

# The integration packages run in phases of two concurrent lanes
# (test/integration/lanes.sh; each test bed has its own ports and state
# dir): the timing-sensitive fault packages (verify, reassign) each share
# their phase only with a lane of short command-line differentials, never
# with a load, the release cross-compile (dist) or another fault package.
# '*' is any package not named here.
# IT_PHASES='*' runs every package one at a time, as before.
IT_PHASES ?= 'verify | topics console groups logdirs configs groupsnative foundation e2e testbed' \
	'reassign cluster | security status ui dumplog clientmetrics' \
	'perf sweep trogdor acls getoffsets deleterecords features | exporter schema verifymem dist quorum replicas transactions delegationtokens quorumdyn *'

test-integration: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox GO=$(GO) IT_TIMEOUT=$(IT_TIMEOUT) test/integration/lanes.sh $(IT_PHASES)

# Long measurements kept out of make test. `make bench` runs them all.
bench: bench-sweep bench-verify bench-mem bench-groups bench-console bench-consume-avro bench-reassign bench-ui bench-ui-messages bench-exporter bench-status bench-dump-log bench-replicas bench-get-offsets

# The trustworthy perf sweep on a fresh 3-broker test bed (issue 21; 5-12
# minutes on 2 cores).
bench-sweep: build deps-integration
	KBOX_BENCH=1 KBOX_BIN=$(CURDIR)/bin/kbox $(GO) test -tags integration -count=1 -v -timeout 40m -run 'TestTrustworthySweep$$' ./test/integration/sweep/

# Issue 19's soak: `kbox verify run --duration 10m --window 1m` on 3
# brokers with a leader SIGKILL and restart every 2 minutes (about 12
# minutes), then the longer fault cases kept out of `make test` (a rolling
# restart under the verifiable producer's defaults, about 3 minutes; the
# consumers' rolling-restart differential, about 1 minute).
soak: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox $(GO) test -tags 'integration soak' -count=1 -v -timeout 30m -run '^TestSoak$$' ./test/integration/verify/
	KBOX_BIN=$(CURDIR)/bin/kbox $(GO) test -tags 'integration soak' -count=1 -v -timeout 15m -run '^TestRunFaults$$/^rolling-restart$$' ./test/integration/verify/
	KBOX_BIN=$(CURDIR)/bin/kbox $(GO) test -tags 'integration soak' -count=1 -v -timeout 15m -run '^TestDifferentialConsumer$$/^rolling$$' ./test/integration/verify/

# Peak RSS and CPU of `kbox verify check` and `kbox verify run` at 1M, 2M
# and 5M records (starts its own 1-broker test bed; ~10 minutes). The table
# goes to docs/benchmarks.md by hand.
bench-verify: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/verify.sh

# Issue 31, item 1: the 2M-record memory runs kept out of make test
# (test/integration/verifymem with KBOX_MEM_LONG=1: verify check and verify
# run of 2M records, ~3 minutes), then kafka-producer-perf-test side by side
# with Apache's at 300k and 2M records, 3 rounds: peak RSS, records/s, CPU
# and load average as a table (test/bench/producer-mem.sh; ~10 minutes idle).
# The table goes to docs/benchmarks.md by hand.
bench-mem: build deps-integration
	KBOX_MEM_LONG=1 KBOX_BIN=$(CURDIR)/bin/kbox $(GO) test -tags integration -count=1 -v -timeout 30m -run 'Memory2M$$' ./test/integration/verifymem/
	KBOX_BIN=$(CURDIR)/bin/kbox VERIFY=0 test/bench/producer-mem.sh

# Issue 32: kbox consume decoding 200,000 Confluent-framed Avro records of
# about 200 bytes to /dev/null through the test bed's real registry, next
# to the same records undecoded and kcat (medians of 3; a few minutes).
# The table goes to docs/benchmarks.md by hand.
# kafka-dump-log over a 1 GiB segment, kbox against Apache: MB/s and peak
# RSS. The table goes to docs/benchmarks.md by hand.
.PHONY: bench-dump-log
bench-dump-log: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/dump-log.sh

.PHONY: bench-consume-avro
bench-consume-avro: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/consume-avro.sh

# Issue 16: consuming 1M records of 100 bytes to /dev/null with kbox's
# kafka-console-consumer, Apache's and kcat -C (medians of 5). The table
# goes to docs/benchmarks.md by hand.
bench-console: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/console-consumer.sh

# Re-render the reports of docs/perf-methodology/ (table, HTML, PNG) from
# their results files; TestPerfMethodologyDocs fails when they are stale.
perf-docs: build
	@for j in docs/perf-methodology/*.json; do n=$${j%.json}; \
	  bin/kbox perf sweep merge $$j --report $$n.html --report $$n.png > $$n.txt 2>/dev/null || exit 1; \
	  echo "rendered $$n.txt, $$n.html, $$n.png"; done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags integration ./test/integration/...
	$(GO) tool staticcheck ./...
	$(GO) tool staticcheck -tags integration ./test/integration/...

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 bin/kbox $(DESTDIR)$(PREFIX)/bin/kbox
	$(DESTDIR)$(PREFIX)/bin/kbox install-links --force $(DESTDIR)$(PREFIX)/bin

# Release files in dist/: a tar.gz per platform (linux and darwin, amd64 and
# arm64), .deb and .rpm packages (nfpm) of the linux binaries with the applet
# links, man pages and completions, and checksums.txt. Files are dated at the
# commit (SOURCE_DATE_EPOCH), binaries stamped like make build.
DIST_TARGETS ?= linux/amd64,linux/arm64,darwin/amd64,darwin/arm64
dist:
	SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} \
	  $(GO) run ./tools/dist -version $(VERSION) -commit $(COMMIT) -targets $(DIST_TARGETS) -out dist

clean:
	rm -rf bin dist

# kafka-consumer-groups --describe --all-groups, 1,000 groups over 1,000
# partitions, kbox vs Apache (issue 13; ~3 minutes). The table goes to
# docs/benchmarks.md by hand.
bench-groups: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/groups.sh

# Replica verification of 1,000 partitions (replication factor 3, 3
# brokers): Apache's tool and the drop-in to their first report, and kbox
# replicas verify to its end (wall, CPU, RSS; medians of 3). The table goes
# to docs/benchmarks.md by hand.
bench-replicas: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/replicas.sh

# kafka-get-offsets over 10,000 partitions (10 topics x 1,000 on one
# broker), kbox against Apache's GetOffsetShell: latest offsets and the
# offsets of a timestamp, outputs compared, medians of 3 (issue 29).
bench-get-offsets: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/get-offsets.sh

# kafka-reassign-partitions --generate and --verify over 10,000 partitions,
# kbox against Apache (wall, CPU, RSS; medians of 3); the table goes to
# docs/benchmarks.md by hand.
bench-reassign: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/reassign.sh

# kbox ui's topic page with a 10,000-partition topic on a playground and a
# 3-broker cluster: time to first byte and CPU per refresh (medians), a
# refresh after the rate interval, rate sampling, binary size with and
# without the dashboard (issues 17, 31; ~10 minutes). The numbers go to
# docs/benchmarks.md by hand.
bench-ui: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/ui.sh

# kbox ui's Messages page on a 1M-record topic on the test bed: the first
# page's TTFB and full response (median of 21). The figure goes to
# docs/benchmarks.md by hand.
bench-ui-messages: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/ui-messages.sh

# kbox exporter with 10,000 partitions and 1,000 groups (the groups
# benchmark's shape): refresh wall time and CPU, scrape time, series and
# peak RSS (issue 33; ~5 minutes). EXTRA="--group-granularity topic" for
# the per-topic series only. The table goes to docs/benchmarks.md by hand.
bench-exporter: build deps-integration
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/exporter.sh

# kbox status over 10 playground profiles, then with one black-holed
# profile beside them: wall time, CPU, each cluster's check time (issue
# 31; ~1 minute). The numbers go to docs/benchmarks.md by hand.
bench-status: build
	KBOX_BIN=$(CURDIR)/bin/kbox test/bench/status.sh
