package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Options says what Main sets up around a test package's run.
type Options struct {
	// Name goes into the temporary directory's name: kbox-<Name>-it.
	Name string
	// Applets are the names linked to the kbox binary in Env.BinDir.
	Applets []string
	// Brokers is the size of the cluster to start; 0 starts none.
	Brokers int
	// Security is the cluster's security, "plaintext" (or "") or "sasl_ssl".
	Security string
	// LogDirs is the number of log.dirs per broker (0 or 1: one).
	LogDirs int
	// Authorizer turns ACLs on (testbed.sh up --authorizer).
	Authorizer bool
	// DynamicQuorum bootstraps the quorum dynamically (testbed.sh up
	// --dynamic-quorum; see UpOptions.DynamicQuorum).
	DynamicQuorum bool
	// SchemaRegistry starts a Schema Registry too (in its own state dir,
	// while the brokers start).
	SchemaRegistry bool
	// ServerProps are extra server.properties lines for every node
	// (testbed.sh's KBOX_TESTBED_SERVER_PROPS, set for this process).
	ServerProps string
	// Ready, if set, gets what Main set up before m.Run: the place to keep
	// it in package variables and to seed the cluster. An error ends the
	// run with exit status 1.
	Ready func(Env) error
}

// Env is what Main set up.
type Env struct {
	// Dir is the temporary directory, removed when Main returns.
	Dir string
	// Kbox is the kbox binary under test (see Binary).
	Kbox string
	// BinDir is Dir/bin, holding the Options.Applets links to Kbox.
	BinDir string
	// Cluster is the running cluster, nil when Options.Brokers is 0. Its
	// state lives in Dir/tb.
	Cluster *Cluster
	// SchemaRegistry is the running registry, nil unless
	// Options.SchemaRegistry. Its state lives in Dir/sr.
	SchemaRegistry *SchemaRegistry
}

// Main is the body of a TestMain: it makes a temporary directory, builds
// (or finds) kbox, links the applets, starts the cluster, calls Ready, runs
// the tests and tears everything down again. It returns the exit status for
// os.Exit. Setup errors go to stderr and give 1.
//
//	func TestMain(m *testing.M) {
//		os.Exit(testbed.Main(m, testbed.Options{Name: "x", Brokers: 1, Ready: func(e testbed.Env) error {
//			cluster = e.Cluster
//			return nil
//		}}))
//	}
func Main(m *testing.M, opts Options) int {
	tmp, err := os.MkdirTemp("", "kbox-"+opts.Name+"-it")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	env := Env{Dir: tmp, BinDir: filepath.Join(tmp, "bin")}
	if env.Kbox, err = Binary(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := LinkApplets(env.Kbox, env.BinDir, opts.Applets...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var srUp chan error
	if opts.SchemaRegistry {
		sr := filepath.Join(tmp, "sr")
		defer func() {
			if err := (&SchemaRegistry{Dir: sr}).Down(); err != nil {
				fmt.Fprintln(os.Stderr, "testbed schema-registry down:", err)
			}
		}()
		srUp = make(chan error, 1)
		go func() {
			var err error
			env.SchemaRegistry, err = SchemaRegistryUp(sr)
			srUp <- err
		}()
	}
	if opts.ServerProps != "" {
		os.Setenv("KBOX_TESTBED_SERVER_PROPS", opts.ServerProps)
	}
	if opts.Brokers > 0 {
		tb := filepath.Join(tmp, "tb")
		// Down also when Up failed half-way, so no JVM outlives the run.
		defer func() {
			if err := (&Cluster{Dir: tb}).Down(); err != nil {
				fmt.Fprintln(os.Stderr, "testbed down:", err)
			}
		}()
		if env.Cluster, err = UpWith(opts.Brokers, opts.Security, tb, UpOptions{LogDirs: opts.LogDirs, Authorizer: opts.Authorizer, DynamicQuorum: opts.DynamicQuorum}); err != nil {
			fmt.Fprintln(os.Stderr, "testbed up:", err)
			if srUp != nil {
				<-srUp
			}
			return 1
		}
	}
	if srUp != nil {
		if err := <-srUp; err != nil {
			fmt.Fprintln(os.Stderr, "testbed schema-registry up:", err)
			return 1
		}
	}
	if opts.Ready != nil {
		if err := opts.Ready(env); err != nil {
			fmt.Fprintln(os.Stderr, "setup:", err)
			return 1
		}
	}
	return m.Run()
}
