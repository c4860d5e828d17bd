package verify

import "github.com/twmb/franz-go/pkg/kmsg"

type (
	kmsgReq  = kmsg.OffsetCommitRequest
	kmsgResp = kmsg.OffsetCommitResponse
)
