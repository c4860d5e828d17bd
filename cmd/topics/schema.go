package topics

// schemaHelp documents the stable field names of -o json and -o yaml.
const schemaHelp = `kafka-topics native output (-o json|yaml); field names are
snake_case and stable (docs/json.md).

--list:
  topics: [string]                      sorted topic names

--describe:
  topics: [                             sorted by name; same filters as the Apache output
    name: string
    id: string                          base64 topic id, as Apache prints it
    internal: bool
    partition_count: int
    replication_factor: int             of the first partition (reassignment-aware)
    min_insync_replicas: int            omitted when unknown
    min_insync_replicas_source: string  DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, ...
    configs: [{name, value, source, sensitive}]   non-default entries (value null when sensitive)
    partitions: [
      partition: int
      leader: int|null                  null when there is no live leader
      replicas: [int]
      isr: [int]
      adding_replicas, removing_replicas: [int] only during a reassignment
      reassigning: bool                 omitted when false
      elr, last_known_elr: [int]|null   null when the broker lacks DescribeTopicPartitions
      under_replicated, unavailable, under_min_isr, at_min_isr: bool
      log_start_offset, high_watermark: int      -o wide only
      replica_size_bytes: {broker id: bytes}     -o wide only
    ]
  ]

--create:   {name, id, partitions, replication_factor, dry_run}
--alter:    [{topic, old_partitions, new_partitions, assignment, dry_run}]
--delete:   {deleted: [string]} or, with --dry-run, {dry_run: true, delete: [string]}

-o table prints one row per partition (TOPIC PARTITION LEADER REPLICAS ISR ELR STATUS);
-o wide adds LOG-START HIGH-WATERMARK REPLICA-SIZES.
`
