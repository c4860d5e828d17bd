package e2elatency

// e2eHelp is kafka-e2e-latency's jopt-simple option table (Kafka 4.4.0), with
// trailing spaces trimmed; e2eUsage pads every line to 80 columns as jopt does.
const e2eHelp = `Option                                   Description
------                                   -----------
--bootstrap-server <String: bootstrap-   REQUIRED: The Kafka broker list string
  server>                                  in the form HOST1:PORT1,HOST2:PORT2.
--command-config [String: config-file]   Optional: A property file for Kafka
                                           producer/consumer/admin client
                                           configuration.
--help                                   Print usage information.
--num-headers [Integer: count]           Optional: The number of headers to
                                           include in each message. (default: 0)
--num-records <Integer: count>           REQUIRED: The number of messages to
                                           send.
--producer-acks <String: producer-acks>  REQUIRED: Producer acknowledgements.
                                           Must be '1' or 'all'.
--record-header-key-size [Integer:       Optional: The size of the message
  bytes]                                   header key in bytes. Used together
                                           with record-header-size. (default: 0)
--record-header-size [Integer: bytes]    Optional: The size of message header
                                           value in bytes. Use -1 for null
                                           header value. (default: 0)
--record-key-size [Integer: bytes]       Optional: The size of the message key
                                           in bytes. If not set, messages are
                                           sent without a key. (default: 0)
--record-size <Integer: bytes>           REQUIRED: The size of each message
                                           payload in bytes.
--topic <String: topic-name>             REQUIRED: The topic to use for the
                                           test.
--version                                Display Kafka version.
`
