package lagassign

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// notedAssignment is the group's assignment as the SyncGroup request carries
// it: each member's partitions in a ConsumerMemberAssignment whose user data
// is the leader's note (AssignmentNote), topics and members in order.
type notedAssignment struct {
	assignment groupAssignment
	note       AssignmentNote
}

func (n notedAssignment) IntoSyncAssignment() []kmsg.SyncGroupRequestGroupAssignment {
	note := n.note.encode()
	out := make([]kmsg.SyncGroupRequestGroupAssignment, 0, len(n.assignment))
	for _, memberID := range sortedKeys(n.assignment) {
		given := kmsg.NewConsumerMemberAssignment()
		for _, tp := range n.assignment[memberID] {
			if len(tp.partitions) == 0 {
				continue
			}
			entry := kmsg.NewConsumerMemberAssignmentTopic()
			entry.Topic = tp.topic
			entry.Partitions = tp.partitions
			given.Topics = append(given.Topics, entry)
		}
		given.UserData = note
		sync := kmsg.NewSyncGroupRequestGroupAssignment()
		sync.MemberID = memberID
		sync.MemberAssignment = given.AppendTo(nil)
		out = append(out, sync)
	}
	return out
}

// parseSyncAssignment reads this member's assignment and the leader's note
// (ok false when the leader wrote none of lagassign's).
func parseSyncAssignment(raw []byte) (map[string][]int32, AssignmentNote, bool, error) {
	if len(raw) == 0 {
		return map[string][]int32{}, AssignmentNote{}, false, nil
	}
	var given kmsg.ConsumerMemberAssignment
	if err := given.ReadFrom(raw); err != nil {
		return nil, AssignmentNote{}, false, fmt.Errorf("lagassign: sync assignment parse failed: %v", err)
	}
	out := make(map[string][]int32, len(given.Topics))
	for _, topic := range given.Topics {
		out[topic.Topic] = append(out[topic.Topic], topic.Partitions...)
	}
	note, ok := decodeNote(given.UserData)
	return out, note, ok, nil
}
