package lagassign

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
)

// assignmentDigest is the sidecar's assignment_digest of an assignment: the
// first 16 hex digits of the SHA-256 of one line per assigned partition,
// "member_id TAB topic TAB partition LF", sorted by member id, topic and
// partition. c-1 holding t0-0 and c-2 holding t0-1 give 72ad50af9b0c62e8. The
// advisor acts only on advice about the assignment its member made as leader.
func assignmentDigest(assignment map[string]map[string][]int32) string {
	hash := sha256.New()
	var line []byte
	for _, member := range sortedKeys(assignment) {
		topics := assignment[member]
		for _, topic := range sortedKeys(topics) {
			partitions := slices.Clone(topics[topic])
			slices.Sort(partitions)
			for _, partition := range partitions {
				line = append(line[:0], member...)
				line = append(line, '\t')
				line = append(line, topic...)
				line = append(line, '\t')
				line = strconv.AppendInt(line, int64(partition), 10)
				line = append(line, '\n')
				hash.Write(line)
			}
		}
	}
	return hex.EncodeToString(hash.Sum(nil)[:8])
}
