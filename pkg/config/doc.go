// Package config turns user configuration into a Connection: the bootstrap
// servers and the merged Java client properties that pkg/kafka maps onto
// franz-go options. The layering below is hand-written (no viper); see
// docs/DEVELOPING.md for why.
//
// Sources, highest precedence first:
//
//  1. command-line flags (--bootstrap-server, --producer-props, -o, ...)
//  2. environment (KBOX_BOOTSTRAP_SERVERS, KBOX_OUTPUT, KBOX_CONNECT_TIMEOUT)
//  3. a Java client properties file (--command-config and friends)
//  4. the selected profile of the YAML config file
//  5. built-in defaults
//
// Secrets (passwords, tokens, keys) are resolved here from references
// (password-env, password-file, a terminal prompt) and are never formatted
// into errors; Redact hides them for display.
package config
