package grouptest

import (
	"fmt"
	"testing"
)

// A brand-new group of two static members (kgo.InstanceID) on a skewed
// backlog, nothing committed, starting from the earliest offset: the first
// rebalances already get the sidecar's lag-aware answer (its on-demand read of
// the topics, reset_policy earliest), every partition's lag known, the worst
// member as the sidecar's answer to any group of two, below range's, and the
// members read every record.
func TestANewGroupOfStaticMembersStartsOnTheSidecarsAnswer(t *testing.T) {
	group := name("cold")
	topics := []string{name("topic"), name("topic")}
	lags := backlog(t, "", topics, skew)
	total := totalOf(lags)
	var members []*member
	for i := 0; i < 2; i++ {
		members = append(members, startMember(t, fmt.Sprintf("go-static-%d", i), group, topics,
			memberOptions{instanceID: fmt.Sprintf("%s-static-%d", group, i)}))
	}
	held := settled(t, members, lags, joinTimeout)
	onTheSidecarsAnswer(t, members)
	worst := worstOf(held, lags)
	if answered := sidecarMaxLag(t, group, 2, topics, lags); worst != answered {
		t.Fatalf("the worst member's lag %d is not the sidecar's answer to a group of two, %d", worst, answered)
	}
	ranged := rangeWorst(t, members, topics, lags)
	if worst >= ranged {
		t.Fatalf("the worst member's lag %d is not below range's %d", worst, ranged)
	}
	err := eventually(joinTimeout, "the group reads the whole backlog", func() (bool, string) {
		read := members[0].readCount() + members[1].readCount()
		return read == total, fmt.Sprintf("%d of %d records", read, total)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("worst member's lag %d (range: %d) of %d", worst, ranged, total)
}
