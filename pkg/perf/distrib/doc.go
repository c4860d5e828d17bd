// Package distrib runs the perf engine's workloads on several machines:
// the Trogdor ExternalCommand protocol of kbox perf worker (the task line,
// the statuses), the driver of a run over Trogdor agents (kbox perf
// distributed, a sweep over agents) and Kubernetes Jobs (kbox perf
// k8s-job), and the merge of the agents' results. It prints nothing.
package distrib
