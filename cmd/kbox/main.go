// Command kbox is a multi-call binary replacing Apache Kafka's admin and
// diagnostic scripts. Invoked through a link named like an Apache script
// (kafka-topics, kafka-topics.sh, ...) it behaves as that script.
package main

import (
	"os"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/pkg/output"
)

func main() {
	os.Exit(app.Main(os.Args, output.System(), os.Getenv))
}
