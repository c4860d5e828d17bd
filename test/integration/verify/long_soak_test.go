//go:build integration && soak

package verify_test

// long is true under `make soak`: the longer fault cases run there only.
const long = true
