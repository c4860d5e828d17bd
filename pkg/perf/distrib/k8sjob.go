package distrib

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Kubernetes Indexed Job runs a distributed load test without Trogdor:
// N pods, each running `kbox perf worker --k8s-job`, pod i reading the
// whole run's workload from $KBOX_PERF_JOB and taking share i
// ($JOB_COMPLETION_INDEX) of it with SplitWorkload, as the Trogdor driver
// gives agent i its share. Every pod prints the worker's status lines on
// stdout; the last one holds its result with the encoded histogram, and
// MergePods merges the pods' logs with MergeAgents, as the driver merges
// its agents.

// JobEnv and IndexEnv are the pod's environment variables: the job's
// workload (JSON JobWorkload) and the index Kubernetes gives each pod of
// an Indexed Job.
const (
	JobEnv   = "KBOX_PERF_JOB"
	IndexEnv = "JOB_COMPLETION_INDEX"
)

// JobWorkload is the whole run a Job's pods share: the workload with the
// run's totals (split like kbox perf distributed's unless PerAgent), the
// number of pods and the shared start time (Workload.StartMs).
type JobWorkload struct {
	Name     string        `json:"name"`
	Pods     int           `json:"pods"`
	PerAgent bool          `json:"per_agent,omitempty"`
	Workload AgentWorkload `json:"workload"`
}

// PodNames are the names the pods' shares carry (client ids, e2e
// topics): NAME-0 .. NAME-(n-1), as Kubernetes names an Indexed Job's
// pods' host names.
func PodNames(name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name + "-" + strconv.Itoa(i)
	}
	return out
}

// Share returns pod i's workload.
func (j *JobWorkload) Share(i int) (*AgentWorkload, error) {
	if j.Pods <= 0 {
		return nil, errors.New("job workload: pods must be positive")
	}
	if i < 0 || i >= j.Pods {
		return nil, fmt.Errorf("job workload: index %d is not in 0..%d", i, j.Pods-1)
	}
	ws := SplitWorkload(j.Workload, PodNames(j.Name, j.Pods), j.PerAgent)
	w := ws[i]
	if err := w.Check(); err != nil {
		return nil, err
	}
	return &w, nil
}

// JobTask is the task of one pod: the job's workload (the value of
// $KBOX_PERF_JOB) and its index ($JOB_COMPLETION_INDEX).
func JobTask(job, index string) (*Task, error) {
	if strings.TrimSpace(job) == "" {
		return nil, fmt.Errorf("$%s is not set (kbox perf worker --k8s-job runs in a pod of kbox perf k8s-job's manifest)", JobEnv)
	}
	i, err := strconv.Atoi(strings.TrimSpace(index))
	if err != nil {
		return nil, fmt.Errorf("$%s %q is not a pod index (the pod must belong to an Indexed Job)", IndexEnv, index)
	}
	var j JobWorkload
	dec := json.NewDecoder(strings.NewReader(job))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("bad $%s: %v", JobEnv, err)
	}
	w, err := j.Share(i)
	if err != nil {
		return nil, err
	}
	return &Task{ID: w.Agent, Workload: *w}, nil
}

// The manifest: the fields of batch/v1 Job kbox writes, with the
// Kubernetes API's own names.
type (
	K8sJob struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   K8sMeta    `json:"metadata"`
		Spec       K8sJobSpec `json:"spec"`
	}
	K8sMeta struct {
		Name      string            `json:"name,omitempty"`
		Namespace string            `json:"namespace,omitempty"`
		Labels    map[string]string `json:"labels,omitempty"`
	}
	K8sJobSpec struct {
		CompletionMode string         `json:"completionMode"`
		Completions    int            `json:"completions"`
		Parallelism    int            `json:"parallelism"`
		BackoffLimit   int            `json:"backoffLimit"`
		Template       K8sPodTemplate `json:"template"`
	}
	K8sPodTemplate struct {
		Metadata K8sMeta    `json:"metadata"`
		Spec     K8sPodSpec `json:"spec"`
	}
	K8sPodSpec struct {
		RestartPolicy string         `json:"restartPolicy"`
		Containers    []K8sContainer `json:"containers"`
	}
	K8sContainer struct {
		Name    string   `json:"name"`
		Image   string   `json:"image"`
		Command []string `json:"command"`
		Env     []K8sEnv `json:"env"`
	}
	K8sEnv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
)

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// CheckJobName checks a Job name (a DNS label short enough for the pods'
// host names NAME-INDEX) and a namespace.
func CheckJobName(name, namespace string, pods int) error {
	if !dnsLabel.MatchString(name) || len(name)+1+len(strconv.Itoa(pods-1)) > 63 {
		return fmt.Errorf("job name %q: want lower-case letters, digits and '-' (a DNS label), short enough for %s-%d to be at most 63 characters", name, name, pods-1)
	}
	if namespace != "" && (!dnsLabel.MatchString(namespace) || len(namespace) > 63) {
		return fmt.Errorf("namespace %q is not a DNS label", namespace)
	}
	return nil
}

// JobManifest is the Indexed Job of a run: completions = parallelism =
// pods, no retries (a retried share would run after the shared start and
// count twice), each pod running command (kbox perf worker --k8s-job)
// with the job's workload in $KBOX_PERF_JOB.
func JobManifest(j *JobWorkload, namespace, image string, command []string) (*K8sJob, error) {
	if err := CheckJobName(j.Name, namespace, j.Pods); err != nil {
		return nil, err
	}
	if strings.TrimSpace(image) == "" {
		return nil, errors.New("no container image")
	}
	if len(command) == 0 {
		return nil, errors.New("no worker command")
	}
	for i := 0; i < j.Pods; i++ {
		if _, err := j.Share(i); err != nil {
			return nil, fmt.Errorf("pod %d: %v", i, err)
		}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "kbox-perf", "kbox.dev/run": j.Name}
	return &K8sJob{APIVersion: "batch/v1", Kind: "Job",
		Metadata: K8sMeta{Name: j.Name, Namespace: namespace, Labels: labels},
		Spec: K8sJobSpec{CompletionMode: "Indexed", Completions: j.Pods, Parallelism: j.Pods, BackoffLimit: 0,
			Template: K8sPodTemplate{Metadata: K8sMeta{Labels: labels}, Spec: K8sPodSpec{RestartPolicy: "Never",
				Containers: []K8sContainer{{Name: "kbox-perf", Image: image, Command: command,
					Env: []K8sEnv{{Name: JobEnv, Value: string(b)}}}}}}}}, nil
}

// PodOutcome is what one pod's log says: its last status (nil when it
// printed none) and the error it ended with.
type PodOutcome struct {
	Source string
	Last   *WorkerStatus
	Error  string
}

// ReadPodLog reads a worker's stdout (kubectl logs of one pod): status
// lines, an error line, and any other line (kubectl's or the runtime's)
// skipped.
func ReadPodLog(source string, r io.Reader) (*PodOutcome, error) {
	o := &PodOutcome{Source: source}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var l struct {
			Status json.RawMessage `json:"status"`
			Error  *string         `json:"error"`
		}
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		if st, ok := ParseStatus(l.Status); ok {
			o.Last = st
		}
		if l.Error != nil {
			o.Error = *l.Error
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	if o.Last == nil && o.Error == "" {
		return nil, fmt.Errorf("%s: no kbox perf worker status line", source)
	}
	return o, nil
}

// MergePods merges the pods' outcomes with MergeAgents: a pod whose last
// status is done is merged, one that failed is failed, one whose log ends
// while it was waiting or running (the pod was killed, or the log was
// taken too early) is lost; both keep what they had measured. SubmitTime
// is the earliest time a pod read its workload, StartTime the earliest
// pod's load start, Coordinator "k8s-job NAME".
func MergePods(pods []*PodOutcome) (*DistributedResult, error) {
	if len(pods) == 0 {
		return nil, errors.New("no pod logs")
	}
	kind, topic := "", ""
	var submit, start time.Time
	seen := map[string]string{}
	var agents []AgentResult
	for _, p := range pods {
		ar := AgentResult{Agent: p.Source, State: AgentFailed, Error: p.Error}
		if st := p.Last; st != nil {
			if st.Agent != "" {
				ar.Agent = st.Agent
			}
			if prev, dup := seen[ar.Agent]; dup {
				return nil, fmt.Errorf("%s and %s are both the log of %s", prev, p.Source, ar.Agent)
			}
			seen[ar.Agent] = p.Source
			switch st.State {
			case WorkerDone:
				ar.State = AgentDone
			case WorkerFailed:
				if ar.Error == "" {
					ar.Error = st.Error
				}
			default:
				ar.State = AgentLost
				ar.Error = strings.TrimPrefix(ar.Error+"; the log ends while the pod was "+st.State, "; ")
			}
			if st.Result != nil {
				kind, topic = st.Result.Kind, st.Result.Topic
			}
			if st.TaskMs > 0 && (submit.IsZero() || st.TaskMs < submit.UnixMilli()) {
				submit = time.UnixMilli(st.TaskMs)
			}
			if st.StartMs > 0 && (start.IsZero() || st.StartMs < start.UnixMilli()) {
				start = time.UnixMilli(st.StartMs)
			}
		}
		if ar.State == AgentDone && (p.Last.Result == nil) {
			ar.State, ar.Error = AgentFailed, "done without a result"
		}
		agents = append(agents, ar)
	}
	for i, p := range pods {
		if p.Last == nil {
			continue
		}
		if p.Last.Result != nil && agents[i].State == AgentDone {
			agents[i].Result = p.Last.Result
		} else if pr, err := p.Last.Partial(kind, topic); err == nil {
			agents[i].Result = pr
		}
		if agents[i].Result != nil && agents[i].State == AgentDone && agents[i].Result.Kind != kind {
			return nil, fmt.Errorf("%s is a %s run, others %s", p.Source, agents[i].Result.Kind, kind)
		}
	}
	job := "k8s-job"
	if i := strings.LastIndexByte(agents[0].Agent, '-'); i > 0 {
		job += " " + agents[0].Agent[:i]
	}
	return MergeAgents(kind, topic, job, submit, start, agents)
}
