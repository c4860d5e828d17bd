package topics

// schemaHelp documents the stable field names of -o json and -o yaml.
const schemaHelp = `kafka-topics native output (-o json|yaml); field names are stable.

--list:
  topics: [string]                      sorted topic names

--describe:
  topics: [                             sorted by name; same filters as the Apache output
    name: string
    id: string                          base64 topic id, as Apache prints it
    internal: bool
    partitionCount: int
    replicationFactor: int              of the first partition (reassignment-aware)
    minInsyncReplicas: int              omitted when unknown
    minInsyncReplicasSource: string     DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, ...
    configs: [{name, value, source, sensitive}]   non-default entries (value null when sensitive)
    partitions: [
      partition: int
      leader: int|null                  null when there is no live leader
      replicas: [int]
      isr: [int]
      addingReplicas, removingReplicas: [int]   only during a reassignment
      reassigning: bool                 omitted when false
      elr, lastKnownElr: [int]|null     null when the broker lacks DescribeTopicPartitions
      underReplicated, unavailable, underMinIsr, atMinIsr: bool
      logStartOffset, highWatermark: int          -o wide only
      replicaSizes: {brokerId: bytes}             -o wide only
    ]
  ]

--create:   {name, id, partitions, replicationFactor, dryRun}
--alter:    [{topic, oldPartitions, newPartitions, assignment, dryRun}]
--delete:   {deleted: [string]} or, with --dry-run, {dryRun: true, delete: [string]}

-o table prints one row per partition (TOPIC PARTITION LEADER REPLICAS ISR ELR STATUS);
-o wide adds LOG-START HIGH-WATERMARK REPLICA-SIZES.
`
