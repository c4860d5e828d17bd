package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Binary returns the kbox binary under test: $KBOX_BIN (the Makefile builds
// bin/kbox and sets it), or else a fresh `go build` into dir.
func Binary(dir string) (string, error) {
	bin := os.Getenv("KBOX_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "kbox")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/kboxdev/kbox/cmd/kbox")
		// The script lives in <root>/test/integration.
		cmd.Dir = filepath.Join(filepath.Dir(Script()), "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build kbox: %v\n%s", err, out)
		}
	}
	return filepath.Abs(bin)
}

// LinkApplets creates dir (if needed) and symlinks named like the given
// applets pointing at bin, so tests run applets through argv[0].
func LinkApplets(bin, dir string, names ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range names {
		if err := os.Symlink(bin, filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}
