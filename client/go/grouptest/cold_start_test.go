package grouptest

import (
	"fmt"
	"testing"
	"time"
)

// A brand-new group of two static members (kgo.InstanceID) on a skewed
// backlog, nothing committed, starting from the earliest offset: the first
// rebalances already get the sidecar's lag-aware answer (its on-demand read of
// the topics, reset_policy earliest), every partition's lag known, the worst
// member as the sidecar's answer to any group of two, below range's, and the
// members read every record. The shim's deadline is coldDeadline, not the
// default 1.5 s: the sidecar reads a group it has never seen within what is left
// of the deadline, and with the whole test suite running beside it (load 8-11 on
// two cores) 1.5 s once left it a partition short (lag_partial).
// coldDeadline is the shim's deadline for the first rebalances of a group the
// sidecar has never read.
const coldDeadline = 10 * time.Second

func TestANewGroupOfStaticMembersStartsOnTheSidecarsAnswer(t *testing.T) {
	group := name("cold")
	topics := []string{name("topic"), name("topic")}
	lags := backlog(t, "", topics, skew)
	total := totalOf(lags)
	var members []*member
	for i := 0; i < 2; i++ {
		members = append(members, startMember(t, fmt.Sprintf("go-static-%d", i), group, topics,
			memberOptions{instanceID: fmt.Sprintf("%s-static-%d", group, i), timeout: coldDeadline}))
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
