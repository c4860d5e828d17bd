package verify

import "github.com/kboxdev/kbox/pkg/argparse"

// The parsers of Kafka 4.4.0's VerifiableProducer and VerifiableConsumer
// (argParser()), option for option.

func producerParser() *argparse.Parser {
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

func consumerParser() *argparse.Parser {
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
