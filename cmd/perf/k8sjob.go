package perf

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/spf13/cobra"
)

const k8sJobLong = `Write a Kubernetes Indexed Job that runs a distributed load test without
Trogdor, and merge its pods' results.

kbox perf k8s-job produce|consume|e2e takes the flags of kbox perf
distributed (the same totals, split the same way) and writes a batch/v1 Job:
completionMode Indexed, completions = parallelism = --pods, no retries. Each
pod runs "kbox perf worker --k8s-job" (--image must have kbox on its PATH),
reads the run from $KBOX_PERF_JOB, takes share $JOB_COMPLETION_INDEX of it
(pod i is agent NAME-i: its records, rate, key range, client id and payload
seed), waits for the shared start time (--start-delay after the manifest is
written, or --start-at) and prints the worker's status lines on stdout; the
last one holds its result with the encoded HDR histogram.

kbox perf k8s-job merge LOG... reads the pods' logs (kubectl logs of each
pod, one file each) and merges them exactly as kbox perf distributed merges
its agents, in the same formats.

  kbox perf k8s-job produce --image registry/kbox:1 --pods 3 --job-name perf1 \
      --bootstrap-server kafka:9092 --topic perf --records 3000000 > job.yaml
  kubectl apply -f job.yaml && kubectl wait --for=condition=complete job/perf1 --timeout=1h
  for i in 0 1 2; do kubectl logs -l job-name=perf1,batch.kubernetes.io/job-completion-index=$i > perf1-$i.log; done
  kbox perf k8s-job merge perf1-*.log -o json

Kubernetes has no start barrier: a pod that starts after the shared start
begins at once (its measured span shows it). The client properties, secrets
included, are in the manifest's environment.
`

// k8sFormats: the manifest as YAML (kubectl apply -f) or JSON.
var k8sFormats = cmdutil.Formats{Default: output.YAML, Allowed: []output.Format{output.YAML, output.JSON}}

func newK8sJobCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s-job produce|consume|e2e|merge",
		Short: "Kubernetes Indexed Job manifests for load tests across pods, and the merge of their results",
		Long:  k8sJobLong,
	}
	for _, c := range []*cobra.Command{newDistProduceCmd(f, true), newDistConsumeCmd(f, true), newDistE2ECmd(f, true)} {
		name := strings.Fields(c.Use)[0]
		c.Use = name + " --image IMAGE --pods N --topic T [flags]"
		c.Short = "Write the Indexed Job of a distributed " + name + " run"
		c.Long = k8sJobLong
		cmd.AddCommand(c)
	}
	cmd.AddCommand(newK8sMergeCmd(f))
	return cmd
}

// registerK8s adds the k8s-job flags in place of the Trogdor ones.
func (d *distFlags) registerK8s(f *cmdutil.Factory, cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&d.pods, "pods", 3, "pods of the Indexed Job (completions = parallelism), one share each")
	fl.StringVar(&d.image, "image", "", "container image with kbox on its PATH (required)")
	fl.StringVar(&d.jobName, "job-name", "", "the Job's name (default kbox-perf-KIND-<unix seconds>)")
	fl.StringVar(&d.namespace, "namespace", "", "the Job's namespace (default: kubectl's)")
	fl.StringVar(&d.trog.Command, "worker-command", "kbox perf worker", "the worker command line in the container (split on spaces; --k8s-job is added)")
	fl.DurationVar(&d.trog.StartDelay, "start-delay", 2*time.Minute, "the shared start is this long after the manifest is written (time to schedule the pods and pull the image)")
	fl.StringVar(&d.startAt, "start-at", "", "the shared start as RFC 3339 time (instead of --start-delay)")
	fl.BoolVar(&d.perAgent, "per-agent", false, "--records and --throughput are per pod instead of totals")
	cmdutil.AddOutputFlag(f, cmd, &d.out, k8sFormats)
}

// writeK8s checks the k8s-job flags and the workload (split over the pods
// as the driver splits it over agents) and prints the Job manifest.
func (d *distFlags) writeK8s(f *cmdutil.Factory, w distrib.AgentWorkload, extra map[string]string, clientID string) error {
	pods, err := d.checkK8s(w.Kind)
	if err != nil {
		return err
	}
	if err := w.Validate(len(pods), d.perAgent); err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	secrets, err := d.connect(f, &w, extra, clientID)
	if err != nil {
		return err
	}
	return writeK8sJob(f, d, w, secrets)
}

// checkK8s validates the k8s-job flags and returns the pods' names.
func (d *distFlags) checkK8s(kind string) ([]string, error) {
	switch {
	case d.pods < 1 || d.pods > 10000:
		return nil, cmdutil.FlagErrorf("--pods must be between 1 and 10000")
	case strings.TrimSpace(d.image) == "":
		return nil, cmdutil.FlagErrorf("--image is required (a container image with kbox on its PATH)")
	case len(strings.Fields(d.trog.Command)) == 0:
		return nil, cmdutil.FlagErrorf("--worker-command must not be empty")
	case d.trog.StartDelay < 0:
		return nil, cmdutil.FlagErrorf("--start-delay must not be negative")
	}
	if d.jobName == "" {
		d.jobName = fmt.Sprintf("kbox-perf-%s-%d", kind, time.Now().Unix())
	}
	if err := distrib.CheckJobName(d.jobName, d.namespace, d.pods); err != nil {
		return nil, cmdutil.FlagErrorf("%v", err)
	}
	d.start = time.Now().Add(d.trog.StartDelay)
	if d.startAt != "" {
		t, err := time.Parse(time.RFC3339, d.startAt)
		if err != nil {
			return nil, cmdutil.FlagErrorf("--start-at %q: want an RFC 3339 time, e.g. 2026-01-02T15:04:05Z", d.startAt)
		}
		d.start = t
	}
	return distrib.PodNames(d.jobName, d.pods), nil
}

// writeK8sJob prints the Job manifest of the run base.
func writeK8sJob(f *cmdutil.Factory, d *distFlags, base distrib.AgentWorkload, secrets bool) error {
	base.StartMs = d.start.UnixMilli()
	j := &distrib.JobWorkload{Name: d.jobName, Pods: d.pods, PerAgent: d.perAgent, Workload: base}
	m, err := distrib.JobManifest(j, d.namespace, d.image, append(strings.Fields(d.trog.Command), "--k8s-job"))
	if err != nil {
		return err
	}
	if secrets {
		f.Warn("the client properties, secrets included, are in the manifest (the pods' environment)")
	}
	if time.Until(d.start) < 0 {
		f.Warn("the shared start %s is in the past: every pod starts at once", d.start.UTC().Format(time.RFC3339))
	}
	if output.Format(d.out) == output.JSON {
		return output.WriteJSON(f.IO.Out, m, false)
	}
	return output.WriteYAML(f.IO.Out, m)
}

func newK8sMergeCmd(f *cmdutil.Factory) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge POD-LOG...",
		Short: "Merge the pods' logs of a kbox perf k8s-job run exactly, as kbox perf distributed merges its agents",
		Long:  k8sJobLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var pods []*distrib.PodOutcome
			for _, a := range args {
				fh, err := os.Open(a)
				if err != nil {
					return err
				}
				p, err := distrib.ReadPodLog(a, fh)
				_ = fh.Close()
				if err != nil {
					return err
				}
				pods = append(pods, p)
			}
			res, err := distrib.MergePods(pods)
			if err != nil {
				return err
			}
			if err := emitDistributed(f, out, res); err != nil {
				return err
			}
			return distError(res, nil)
		},
	}
	cmdutil.AddOutputFlag(f, cmd, &out, distFormats)
	return cmd
}
