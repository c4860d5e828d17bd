package testbed

import "fmt"

// SchemaRegistry is a Confluent-API-compatible Schema Registry (Apicurio
// Registry, in-memory) on loopback, started by `testbed.sh schema-registry
// up` in a test-bed state dir (see testbed.sh and docs/schema-registry.md).
type SchemaRegistry struct {
	Dir string
	// URL is KBOX_SCHEMA_REGISTRY: the base URL of the Confluent API,
	// http://127.0.0.1:port/apis/ccompat/v7.
	URL string
}

// SchemaRegistryUp starts a registry in state dir dir (which may also hold
// a Kafka cluster or Trogdor: `testbed.sh down` stops them all). The first
// call on a machine builds the registry into the jar cache (a few minutes).
func SchemaRegistryUp(dir string) (*SchemaRegistry, error) {
	stdout, stderr, err := run(dir, nil, "schema-registry", "up")
	r := &SchemaRegistry{Dir: dir}
	if err != nil {
		return r, fmt.Errorf("testbed.sh schema-registry up: %w\n%s", err, tail(stderr, 8000))
	}
	r.URL = parseExports(stdout)["KBOX_SCHEMA_REGISTRY"]
	if r.URL == "" {
		return r, fmt.Errorf("testbed.sh schema-registry up printed no KBOX_SCHEMA_REGISTRY; stdout: %q", stdout)
	}
	return r, nil
}

// Down stops the registry and removes its state. It is fine to call it
// more than once.
func (r *SchemaRegistry) Down() error {
	if _, stderr, err := run(r.Dir, nil, "schema-registry", "down"); err != nil {
		return fmt.Errorf("testbed.sh schema-registry down: %w\n%s", err, tail(stderr, 4000))
	}
	return nil
}
