//go:build !linux

package cmdutil

func dropMappedBinary() {}
