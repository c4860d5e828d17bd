// Package sweep is kbox perf sweep's use case: a plan of cells over client
// properties and workload dimensions, its validation and presets, the run
// of every cell through the perf engine (locally or on Trogdor agents) with
// the trust checks (cluster warm-up, interleaved repeats, outlier and stall
// re-runs), resumable results files, ranking by objective and the table.
// The charts and reports are package report. It prints nothing: progress
// goes to a callback.
package sweep
