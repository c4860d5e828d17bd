package status

import "github.com/kboxdev/kbox/pkg/config"

// ProfileNames are the profiles a multi-cluster command shows: the
// --profile list (or KBOX_PROFILE), else every profile of the file by
// name. `kbox ui` selects its clusters the way `kbox status` does.
func ProfileNames(sel string, file *config.File) []string { return profileNames(sel, file) }
