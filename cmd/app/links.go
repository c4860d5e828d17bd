package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/spf13/cobra"
)

var installLinksApplet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "install-links", NoProfile: true,
	Short: "Create applet links (kafka-topics, kafka-topics.sh, ...) to this binary in DIR"} // New: set in init

func newInstallLinksCmd(f *cmdutil.Factory) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "install-links DIR",
		Short: "Create applet links (kafka-topics, kafka-topics.sh, ...) to this binary in DIR",
		Example: `  # links beside the binary
  kbox install-links "$(dirname "$(command -v kbox)")"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			n, err := InstallLinks(args[0], exe, force)
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "installed %d links in %s\n", n, args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace existing files of the same names")
	return cmd
}

// InstallLinks creates relative symlinks in dir, one per applet name with
// and without ".sh", pointing at target. Existing links to the same target
// are left alone; other existing files are an error unless force.
func InstallLinks(dir, target string, force bool) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	absTarget, err := filepath.Abs(target)
	if err != nil {
		return 0, err
	}
	rel, err := filepath.Rel(absDir, absTarget)
	if err != nil {
		rel = absTarget
	}
	n := 0
	for _, name := range LinkNames() {
		p := filepath.Join(absDir, name)
		if cur, err := os.Readlink(p); err == nil && cur == rel {
			n++
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			if !force {
				return n, fmt.Errorf("%s exists; use --force to replace it", p)
			}
			if err := os.Remove(p); err != nil {
				return n, err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		if err := os.Symlink(rel, p); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
