// Package javaerr is the one table of the Java exception each Kafka error
// code stands for: the class org.apache.kafka.common.protocol.Errors gives
// the code in Kafka 4.4 (Errors.forCode(code).exception()), and the ways
// Java prints it. Apache's tools print these names; every kbox drop-in
// that prints a broker error the Java way takes them from here.
package javaerr

import "strings"

// Package is the package of the exception classes but one
// (INVALID_RECORD's org.apache.kafka.common.InvalidRecordException).
const Package = "org.apache.kafka.common.errors."

// classes maps every error code of Kafka 4.4 but NONE to its exception's
// class: the simple name when the class is in Package, the fully
// qualified name otherwise. Captured from kafka-clients 4.4.0's Errors
// enum (testdata/errors-4.4.0.tsv: code, enum name, class; see
// javaerr_test.go for how); the tests check the two against each other
// and against the jar's classes.
var classes = map[int16]string{
	-1:  "UnknownServerException",                          // UNKNOWN_SERVER_ERROR
	1:   "OffsetOutOfRangeException",                       // OFFSET_OUT_OF_RANGE
	2:   "CorruptRecordException",                          // CORRUPT_MESSAGE
	3:   "UnknownTopicOrPartitionException",                // UNKNOWN_TOPIC_OR_PARTITION
	4:   "InvalidFetchSizeException",                       // INVALID_FETCH_SIZE
	5:   "LeaderNotAvailableException",                     // LEADER_NOT_AVAILABLE
	6:   "NotLeaderOrFollowerException",                    // NOT_LEADER_OR_FOLLOWER
	7:   "TimeoutException",                                // REQUEST_TIMED_OUT
	8:   "BrokerNotAvailableException",                     // BROKER_NOT_AVAILABLE
	9:   "ReplicaNotAvailableException",                    // REPLICA_NOT_AVAILABLE
	10:  "RecordTooLargeException",                         // MESSAGE_TOO_LARGE
	11:  "ControllerMovedException",                        // STALE_CONTROLLER_EPOCH
	12:  "OffsetMetadataTooLarge",                          // OFFSET_METADATA_TOO_LARGE
	13:  "NetworkException",                                // NETWORK_EXCEPTION
	14:  "CoordinatorLoadInProgressException",              // COORDINATOR_LOAD_IN_PROGRESS
	15:  "CoordinatorNotAvailableException",                // COORDINATOR_NOT_AVAILABLE
	16:  "NotCoordinatorException",                         // NOT_COORDINATOR
	17:  "InvalidTopicException",                           // INVALID_TOPIC_EXCEPTION
	18:  "RecordBatchTooLargeException",                    // RECORD_LIST_TOO_LARGE
	19:  "NotEnoughReplicasException",                      // NOT_ENOUGH_REPLICAS
	20:  "NotEnoughReplicasAfterAppendException",           // NOT_ENOUGH_REPLICAS_AFTER_APPEND
	21:  "InvalidRequiredAcksException",                    // INVALID_REQUIRED_ACKS
	22:  "IllegalGenerationException",                      // ILLEGAL_GENERATION
	23:  "InconsistentGroupProtocolException",              // INCONSISTENT_GROUP_PROTOCOL
	24:  "InvalidGroupIdException",                         // INVALID_GROUP_ID
	25:  "UnknownMemberIdException",                        // UNKNOWN_MEMBER_ID
	26:  "InvalidSessionTimeoutException",                  // INVALID_SESSION_TIMEOUT
	27:  "RebalanceInProgressException",                    // REBALANCE_IN_PROGRESS
	28:  "InvalidCommitOffsetSizeException",                // INVALID_COMMIT_OFFSET_SIZE
	29:  "TopicAuthorizationException",                     // TOPIC_AUTHORIZATION_FAILED
	30:  "GroupAuthorizationException",                     // GROUP_AUTHORIZATION_FAILED
	31:  "ClusterAuthorizationException",                   // CLUSTER_AUTHORIZATION_FAILED
	32:  "InvalidTimestampException",                       // INVALID_TIMESTAMP
	33:  "UnsupportedSaslMechanismException",               // UNSUPPORTED_SASL_MECHANISM
	34:  "IllegalSaslStateException",                       // ILLEGAL_SASL_STATE
	35:  "UnsupportedVersionException",                     // UNSUPPORTED_VERSION
	36:  "TopicExistsException",                            // TOPIC_ALREADY_EXISTS
	37:  "InvalidPartitionsException",                      // INVALID_PARTITIONS
	38:  "InvalidReplicationFactorException",               // INVALID_REPLICATION_FACTOR
	39:  "InvalidReplicaAssignmentException",               // INVALID_REPLICA_ASSIGNMENT
	40:  "InvalidConfigurationException",                   // INVALID_CONFIG
	41:  "NotControllerException",                          // NOT_CONTROLLER
	42:  "InvalidRequestException",                         // INVALID_REQUEST
	43:  "UnsupportedForMessageFormatException",            // UNSUPPORTED_FOR_MESSAGE_FORMAT
	44:  "PolicyViolationException",                        // POLICY_VIOLATION
	45:  "OutOfOrderSequenceException",                     // OUT_OF_ORDER_SEQUENCE_NUMBER
	46:  "DuplicateSequenceException",                      // DUPLICATE_SEQUENCE_NUMBER
	47:  "InvalidProducerEpochException",                   // INVALID_PRODUCER_EPOCH
	48:  "InvalidTxnStateException",                        // INVALID_TXN_STATE
	49:  "InvalidPidMappingException",                      // INVALID_PRODUCER_ID_MAPPING
	50:  "InvalidTxnTimeoutException",                      // INVALID_TRANSACTION_TIMEOUT
	51:  "ConcurrentTransactionsException",                 // CONCURRENT_TRANSACTIONS
	52:  "TransactionCoordinatorFencedException",           // TRANSACTION_COORDINATOR_FENCED
	53:  "TransactionalIdAuthorizationException",           // TRANSACTIONAL_ID_AUTHORIZATION_FAILED
	54:  "SecurityDisabledException",                       // SECURITY_DISABLED
	55:  "OperationNotAttemptedException",                  // OPERATION_NOT_ATTEMPTED
	56:  "KafkaStorageException",                           // KAFKA_STORAGE_ERROR
	57:  "LogDirNotFoundException",                         // LOG_DIR_NOT_FOUND
	58:  "SaslAuthenticationException",                     // SASL_AUTHENTICATION_FAILED
	59:  "UnknownProducerIdException",                      // UNKNOWN_PRODUCER_ID
	60:  "ReassignmentInProgressException",                 // REASSIGNMENT_IN_PROGRESS
	61:  "DelegationTokenDisabledException",                // DELEGATION_TOKEN_AUTH_DISABLED
	62:  "DelegationTokenNotFoundException",                // DELEGATION_TOKEN_NOT_FOUND
	63:  "DelegationTokenOwnerMismatchException",           // DELEGATION_TOKEN_OWNER_MISMATCH
	64:  "UnsupportedByAuthenticationException",            // DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
	65:  "DelegationTokenAuthorizationException",           // DELEGATION_TOKEN_AUTHORIZATION_FAILED
	66:  "DelegationTokenExpiredException",                 // DELEGATION_TOKEN_EXPIRED
	67:  "InvalidPrincipalTypeException",                   // INVALID_PRINCIPAL_TYPE
	68:  "GroupNotEmptyException",                          // NON_EMPTY_GROUP
	69:  "GroupIdNotFoundException",                        // GROUP_ID_NOT_FOUND
	70:  "FetchSessionIdNotFoundException",                 // FETCH_SESSION_ID_NOT_FOUND
	71:  "InvalidFetchSessionEpochException",               // INVALID_FETCH_SESSION_EPOCH
	72:  "ListenerNotFoundException",                       // LISTENER_NOT_FOUND
	73:  "TopicDeletionDisabledException",                  // TOPIC_DELETION_DISABLED
	74:  "FencedLeaderEpochException",                      // FENCED_LEADER_EPOCH
	75:  "UnknownLeaderEpochException",                     // UNKNOWN_LEADER_EPOCH
	76:  "UnsupportedCompressionTypeException",             // UNSUPPORTED_COMPRESSION_TYPE
	77:  "StaleBrokerEpochException",                       // STALE_BROKER_EPOCH
	78:  "OffsetNotAvailableException",                     // OFFSET_NOT_AVAILABLE
	79:  "MemberIdRequiredException",                       // MEMBER_ID_REQUIRED
	80:  "PreferredLeaderNotAvailableException",            // PREFERRED_LEADER_NOT_AVAILABLE
	81:  "GroupMaxSizeReachedException",                    // GROUP_MAX_SIZE_REACHED
	82:  "FencedInstanceIdException",                       // FENCED_INSTANCE_ID
	83:  "EligibleLeadersNotAvailableException",            // ELIGIBLE_LEADERS_NOT_AVAILABLE
	84:  "ElectionNotNeededException",                      // ELECTION_NOT_NEEDED
	85:  "NoReassignmentInProgressException",               // NO_REASSIGNMENT_IN_PROGRESS
	86:  "GroupSubscribedToTopicException",                 // GROUP_SUBSCRIBED_TO_TOPIC
	87:  "org.apache.kafka.common.InvalidRecordException",  // INVALID_RECORD
	88:  "UnstableOffsetCommitException",                   // UNSTABLE_OFFSET_COMMIT
	89:  "ThrottlingQuotaExceededException",                // THROTTLING_QUOTA_EXCEEDED
	90:  "ProducerFencedException",                         // PRODUCER_FENCED
	91:  "ResourceNotFoundException",                       // RESOURCE_NOT_FOUND
	92:  "DuplicateResourceException",                      // DUPLICATE_RESOURCE
	93:  "UnacceptableCredentialException",                 // UNACCEPTABLE_CREDENTIAL
	94:  "InconsistentVoterSetException",                   // INCONSISTENT_VOTER_SET
	95:  "InvalidUpdateVersionException",                   // INVALID_UPDATE_VERSION
	96:  "FeatureUpdateFailedException",                    // FEATURE_UPDATE_FAILED
	97:  "PrincipalDeserializationException",               // PRINCIPAL_DESERIALIZATION_FAILURE
	98:  "SnapshotNotFoundException",                       // SNAPSHOT_NOT_FOUND
	99:  "PositionOutOfRangeException",                     // POSITION_OUT_OF_RANGE
	100: "UnknownTopicIdException",                         // UNKNOWN_TOPIC_ID
	101: "DuplicateBrokerRegistrationException",            // DUPLICATE_BROKER_REGISTRATION
	102: "BrokerIdNotRegisteredException",                  // BROKER_ID_NOT_REGISTERED
	103: "InconsistentTopicIdException",                    // INCONSISTENT_TOPIC_ID
	104: "InconsistentClusterIdException",                  // INCONSISTENT_CLUSTER_ID
	105: "TransactionalIdNotFoundException",                // TRANSACTIONAL_ID_NOT_FOUND
	106: "FetchSessionTopicIdException",                    // FETCH_SESSION_TOPIC_ID_ERROR
	107: "IneligibleReplicaException",                      // INELIGIBLE_REPLICA
	108: "NewLeaderElectedException",                       // NEW_LEADER_ELECTED
	109: "OffsetMovedToTieredStorageException",             // OFFSET_MOVED_TO_TIERED_STORAGE
	110: "FencedMemberEpochException",                      // FENCED_MEMBER_EPOCH
	111: "UnreleasedInstanceIdException",                   // UNRELEASED_INSTANCE_ID
	112: "UnsupportedAssignorException",                    // UNSUPPORTED_ASSIGNOR
	113: "StaleMemberEpochException",                       // STALE_MEMBER_EPOCH
	114: "MismatchedEndpointTypeException",                 // MISMATCHED_ENDPOINT_TYPE
	115: "UnsupportedEndpointTypeException",                // UNSUPPORTED_ENDPOINT_TYPE
	116: "UnknownControllerIdException",                    // UNKNOWN_CONTROLLER_ID
	117: "UnknownSubscriptionIdException",                  // UNKNOWN_SUBSCRIPTION_ID
	118: "TelemetryTooLargeException",                      // TELEMETRY_TOO_LARGE
	119: "InvalidRegistrationException",                    // INVALID_REGISTRATION
	120: "TransactionAbortableException",                   // TRANSACTION_ABORTABLE
	121: "InvalidRecordStateException",                     // INVALID_RECORD_STATE
	122: "ShareSessionNotFoundException",                   // SHARE_SESSION_NOT_FOUND
	123: "InvalidShareSessionEpochException",               // INVALID_SHARE_SESSION_EPOCH
	124: "FencedStateEpochException",                       // FENCED_STATE_EPOCH
	125: "InvalidVoterKeyException",                        // INVALID_VOTER_KEY
	126: "DuplicateVoterException",                         // DUPLICATE_VOTER
	127: "VoterNotFoundException",                          // VOTER_NOT_FOUND
	128: "InvalidRegularExpression",                        // INVALID_REGULAR_EXPRESSION
	129: "RebootstrapRequiredException",                    // REBOOTSTRAP_REQUIRED
	130: "StreamsInvalidTopologyException",                 // STREAMS_INVALID_TOPOLOGY
	131: "StreamsInvalidTopologyEpochException",            // STREAMS_INVALID_TOPOLOGY_EPOCH
	132: "StreamsTopologyFencedException",                  // STREAMS_TOPOLOGY_FENCED
	133: "ShareSessionLimitReachedException",               // SHARE_SESSION_LIMIT_REACHED
	134: "GroupDeletionFailedException",                    // GROUP_DELETION_FAILED
	135: "StreamsTopologyDescriptionUpdateFailedException", // STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED
	136: "ControllerIdNotRegisteredException",              // CONTROLLER_ID_NOT_REGISTERED
}

// unknown is what Errors.forCode returns for a code it does not know.
const unknown = "UnknownServerException"

// Class is the fully qualified class name of the exception of code (""
// for 0, no error). A code Kafka 4.4 does not know is an
// UnknownServerException, as Errors.forCode makes it.
func Class(code int16) string {
	if code == 0 {
		return ""
	}
	n, ok := classes[code]
	if !ok {
		n = unknown
	}
	if strings.Contains(n, ".") {
		return n
	}
	return Package + n
}

// SimpleName is the class name without its package (getSimpleName), ""
// for 0.
func SimpleName(code int16) string {
	c := Class(code)
	return c[strings.LastIndex(c, ".")+1:]
}

// String is the exception's Throwable.toString: "<class>: <message>".
func String(code int16, msg string) string {
	return Class(code) + ": " + msg
}
