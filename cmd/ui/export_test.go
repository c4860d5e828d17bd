package ui

import (
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/dashboard"
)

// BuildClusters is buildClusters with the default options, for the
// external tests (which run kbox status and kbox top through cmd/app).
func BuildClusters(f *cmdutil.Factory) ([]dashboard.Cluster, error) {
	return buildClusters(f, &options{})
}
