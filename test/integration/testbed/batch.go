package testbed

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
)

// ApacheBatch runs the Apache tool (kafka-topics, kafka-acls, ...) once per
// command line in cmds, all in one JVM (testbed.sh apache-batch; a JVM
// start costs seconds on a loaded machine), and returns each case's stdout,
// stderr and exit code in order (Took is zero). A case cannot read stdin,
// and an argument cannot hold a tab or newline. Java's stack traces name
// ApacheBatch's frames below the tool's: compare their first lines. dir is
// the test bed's state dir, or "" (no cluster is needed to run a tool).
func ApacheBatch(dir, tool string, cmds [][]string) ([]Result, error) {
	var b strings.Builder
	for _, c := range cmds {
		for _, a := range c {
			if strings.ContainsAny(a, "\t\n") {
				return nil, fmt.Errorf("apache batch: argument %q holds a tab or newline", a)
			}
		}
		b.WriteString(strings.Join(c, "\t") + "\n")
	}
	f, err := os.CreateTemp("", "kbox-apache-batch-*.txt")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	out, errs, err := run(dir, nil, "apache-batch", tool, f.Name())
	if err != nil {
		return nil, fmt.Errorf("apache batch %s: %v\n%s", tool, err, errs)
	}
	return parseBatch(out, len(cmds), errs)
}

// ApacheBatch runs the tool's cases in one JVM against this cluster's state dir.
func (c *Cluster) ApacheBatch(tool string, cmds [][]string) ([]Result, error) {
	dir := ""
	if c != nil {
		dir = c.Dir
	}
	return ApacheBatch(dir, tool, cmds)
}

func parseBatch(out string, want int, errs string) ([]Result, error) {
	lines := strings.Split(out, "\n")
	var res []Result
	for i := 0; i+2 < len(lines); i += 3 {
		var r Result
		if _, err := fmt.Sscanf(lines[i], "@@case %d", &r.Code); err != nil {
			return nil, fmt.Errorf("apache batch: output line %d: %q", i+1, lines[i])
		}
		o, err1 := base64.StdEncoding.DecodeString(lines[i+1])
		e, err2 := base64.StdEncoding.DecodeString(lines[i+2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("apache batch: case %d: %v %v", len(res)+1, err1, err2)
		}
		r.Stdout, r.Stderr = string(o), string(e)
		res = append(res, r)
	}
	if len(res) != want {
		return nil, fmt.Errorf("apache batch: %d results for %d cases\n%s", len(res), want, errs)
	}
	return res, nil
}
