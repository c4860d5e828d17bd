package verifiableconsumer

import "github.com/kboxdev/kbox/pkg/argparse"

// parser is Kafka 4.4.0's VerifiableConsumer.argParser(), option for option.
func parser() *argparse.Parser {
	p := argparse.New("verifiable-consumer", "This tool consumes messages from a specific topic and emits consumer events (e.g. group rebalances, received messages, and offsets committed) as JSON objects to STDOUT.")
	p.DefaultHelp = true
	g := p.AddGroup("Connection Group", "Group of arguments for connection to brokers", true, true)
	g.Add(argparse.Arg{Flags: []string{"--bootstrap-server"}, Required: true, Dest: "bootstrapServer", Metavar: "HOST1:PORT1[,HOST2:PORT2[...]]", Help: "The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,..."})
	p.Add(argparse.Arg{Flags: []string{"--topic"}, Metavar: "TOPIC", Required: true, Help: "Consumes messages from this topic."})
	p.Add(argparse.Arg{Flags: []string{"--group-protocol"}, Default: "classic", Metavar: "GROUP-PROTOCOL", Dest: "groupProtocol", Help: "Group protocol (must be one of CLASSIC, CONSUMER)"})
	p.Add(argparse.Arg{Flags: []string{"--group-remote-assignor"}, Metavar: "GROUP-REMOTE-ASSIGNOR", Dest: "groupRemoteAssignor", Help: "Group remote assignor; only used if the group protocol is CONSUMER"})
	p.Add(argparse.Arg{Flags: []string{"--group-id"}, Required: true, Metavar: "GROUP-ID", Dest: "groupId", Help: "The group id of the consumer group"})
	p.Add(argparse.Arg{Flags: []string{"--group-instance-id"}, Metavar: "GROUP-INSTANCE-ID", Dest: "groupInstanceId", Help: "A unique identifier of the consumer instance"})
	p.Add(argparse.Arg{Flags: []string{"--max-messages"}, Type: argparse.Int, Default: -1, Metavar: "MAX-MESSAGES", Dest: "maxMessages", Help: "Consume this many messages. If -1 (the default), the consumer will consume until the process is killed externally"})
	p.Add(argparse.Arg{Flags: []string{"--session-timeout"}, Type: argparse.Int, Metavar: "TIMEOUT-MS", Dest: "sessionTimeout", Help: "Set the consumer's session timeout, note that this configuration is not supported when group protocol is consumer"})
	p.Add(argparse.Arg{Flags: []string{"--verbose"}, Type: argparse.StoreTrue, Metavar: "VERBOSE", Help: "Enable to log individual consumed records"})
	p.Add(argparse.Arg{Flags: []string{"--enable-autocommit"}, Type: argparse.StoreTrue, Dest: "useAutoCommit", Help: "Enable offset auto-commit on consumer"})
	p.Add(argparse.Arg{Flags: []string{"--close-timeout"}, Type: argparse.Int, Default: 30000, Metavar: "CLOSE-TIMEOUT-MS", Dest: "closeTimeout", Help: "Timeout in milliseconds for closing the consumer (default: 30000)"})
	p.Add(argparse.Arg{Flags: []string{"--reset-policy"}, Default: "earliest", Metavar: "RESET-POLICY", Dest: "resetPolicy", Help: "Set reset policy (must be either 'earliest', 'latest', or 'none')"})
	p.Add(argparse.Arg{Flags: []string{"--assignment-strategy"}, Default: "org.apache.kafka.clients.consumer.RangeAssignor", Metavar: "ASSIGNMENT-STRATEGY", Dest: "assignmentStrategy", Help: "Set assignment strategy (e.g. org.apache.kafka.clients.consumer.RoundRobinAssignor); only used if the group protocol is CLASSIC"})
	p.Add(argparse.Arg{Flags: []string{"--consumer.config"}, Metavar: "CONFIG-FILE", Dest: "consumer.config", Help: "(DEPRECATED) Consumer config properties file. This option will be removed in a future version. Use --command-config instead"})
	p.Add(argparse.Arg{Flags: []string{"--command-config"}, Metavar: "CONFIG-FILE", Dest: "commandConfigFile", Help: "Config properties file (config options shared with command line parameters will be overridden)."})
	return p
}
