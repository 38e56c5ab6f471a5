package lagassign

import "encoding/binary"

// CooperativeProtocolName is the cooperative shims' protocol, the Java
// CooperativeLagAssignor's: apart from "lagassign", so a group never mixes
// eager and cooperative leaders.
const CooperativeProtocolName = "lagassign-cooperative"

// NewCooperative returns the balancer for the cooperative rebalance protocol:
// during a rebalance every member keeps consuming the partitions it keeps.
// The leader asks the sidecar with "protocol": "cooperative" and each member's
// owned partitions as franz-go reports them; the sidecar withholds (under
// 'revoked') every partition that changes owner, its owner revokes it, and the
// follow-up rebalance franz-go starts gives it to its new member. The leader
// refuses an answer that gives a partition straight to a new owner, withholds
// one from a member that does not own it, or both gives and withholds one; it
// then falls back to franz-go's CooperativeStickyBalancer. Its protocol is
// "lagassign-cooperative", so Go members share a group with the Java shim's
// CooperativeLagAssignor (Python members cannot join: their shims are eager).
func NewCooperative(cfg Config) (*Balancer, error) {
	b, err := New(cfg)
	if err != nil {
		return nil, err
	}
	b.cooperative = true
	return b, nil
}

// cooperativeStickyUserData is Kafka's CooperativeStickyAssignor's own user
// data, the generation as a big-endian int32, which the Java shim's leader
// hands its fallback from the field cooperative_sticky. franz-go's and
// Kafka's cooperative-sticky read the generation from the metadata itself
// (version 2 on); this keeps the Java leader's fallback reading what it wrote.
func cooperativeStickyUserData(generation int32) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(generation))
}
