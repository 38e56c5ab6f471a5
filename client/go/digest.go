package lagassign

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// assignmentDigest is the sidecar's assignment_digest of an assignment: the
// first 16 hex digits of the SHA-256 of one line per assigned partition,
// "member_id TAB topic TAB partition LF", sorted by member id, topic and
// partition. c-1 holding t0-0 and c-2 holding t0-1 give 72ad50af9b0c62e8. The
// advisor acts only on advice about the assignment its member made as leader.
// Each member's lines are written into one buffer and hashed at once; the
// assignment's topics and partitions are in order already.
func assignmentDigest(assignment groupAssignment) string {
	hash := sha256.New()
	var lines []byte
	for _, member := range sortedKeys(assignment) {
		lines = lines[:0]
		for _, tp := range assignment[member] {
			for _, partition := range tp.partitions {
				lines = append(lines, member...)
				lines = append(lines, '\t')
				lines = append(lines, tp.topic...)
				lines = append(lines, '\t')
				lines = strconv.AppendInt(lines, int64(partition), 10)
				lines = append(lines, '\n')
			}
		}
		hash.Write(lines)
	}
	return hex.EncodeToString(hash.Sum(nil)[:8])
}
