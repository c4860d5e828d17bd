package verifiableproducer

import "github.com/kboxdev/kbox/pkg/argparse"

// parser is Kafka 4.4.0's VerifiableProducer.argParser(), option for option.
func parser() *argparse.Parser {
	p := argparse.New("verifiable-producer", `This tool produces increasing integers to the specified topic and prints JSON metadata to stdout on each "send" request, making externally visible which messages have been acked and which have not.`)
	p.DefaultHelp = true
	p.Add(argparse.Arg{Flags: []string{"--topic"}, Metavar: "TOPIC", Required: true, Help: "Produce messages to this topic."})
	g := p.AddGroup("Connection Group", "Group of arguments for connection to brokers", true, true)
	g.Add(argparse.Arg{Flags: []string{"--bootstrap-server"}, Dest: "bootstrapServer", Metavar: "HOST1:PORT1[,HOST2:PORT2[...]]", Help: "REQUIRED: The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,..."})
	p.Add(argparse.Arg{Flags: []string{"--max-messages"}, Type: argparse.Int, Default: -1, Dest: "maxMessages", Metavar: "MAX-MESSAGES", Help: "Produce this many messages. If -1, produce messages until the process is killed externally."})
	p.Add(argparse.Arg{Flags: []string{"--throughput"}, Type: argparse.Int, Default: -1, Metavar: "THROUGHPUT", Help: "If set >= 0, throttle maximum message throughput to *approximately* THROUGHPUT messages/sec."})
	p.Add(argparse.Arg{Flags: []string{"--acks"}, Type: argparse.Int, Default: -1, Choices: []string{"0", "1", "-1"}, Metavar: "ACKS", Help: "Acks required on each produced message. See Kafka docs on acks for details."})
	p.Add(argparse.Arg{Flags: []string{"--producer.config"}, Dest: "producer.config", Metavar: "CONFIG-FILE", Help: "(DEPRECATED) Producer config properties file. This option will be removed in a future version. Use --command-config instead."})
	p.Add(argparse.Arg{Flags: []string{"--message-create-time"}, Type: argparse.Long, Default: -1, Metavar: "CREATE-TIME", Dest: "createTime", Help: "Send messages with creation time starting at the arguments value, in milliseconds since epoch"})
	p.Add(argparse.Arg{Flags: []string{"--value-prefix"}, Type: argparse.Int, Metavar: "VALUE-PREFIX", Dest: "valuePrefix", Help: "If specified, each produced value will have this prefix with a dot separator"})
	p.Add(argparse.Arg{Flags: []string{"--repeating-keys"}, Type: argparse.Int, Metavar: "REPEATING-KEYS", Dest: "repeatingKeys", Help: "If specified, each produced record will have a key starting at 0 increment by 1 up to the number specified (exclusive), then the key is set to 0 again"})
	p.Add(argparse.Arg{Flags: []string{"--command-config"}, Metavar: "CONFIG-FILE", Dest: "commandConfigFile", Help: "Config properties file (config options shared with command line parameters will be overridden)."})
	return p
}
