// Package perf is kbox's producer and consumer load-test engine: the exact
// emulation of Apache Kafka's kafka-producer-perf-test and
// kafka-consumer-perf-test measurement (windows, sampling, percentiles,
// throttling, payloads) and kbox's native instrument (every-record HDR
// latency, coordinated-omission-correct pacing, warm-up exclusion, several
// clients, mergeable JSON results).
//
// The package never prints on its own: Apache-format lines go to the
// io.Writer the caller passes, native progress goes to a callback.
//
// Around the engine: package sweep runs it over a grid of settings, package
// report draws a sweep's charts, package distrib runs it on Trogdor agents
// and Kubernetes Jobs.
package perf
