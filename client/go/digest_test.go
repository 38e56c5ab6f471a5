package lagassign

import "testing"

// The example of docs/advice.md: the sidecar's assignment_digest of the same assignment.
func TestDigestIsTheSidecarsAssignmentDigest(t *testing.T) {
	got := assignmentDigest(assignmentOf(map[string]map[string][]int32{
		"c-2": {"t0": {1}},
		"c-1": {"t0": {0}},
	}))
	if got != "72ad50af9b0c62e8" {
		t.Fatalf("digest %s, want 72ad50af9b0c62e8", got)
	}
}
