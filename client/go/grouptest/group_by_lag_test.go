package grouptest

import (
	"fmt"
	"log/slog"
	"testing"
	"time"
)

const joinTimeout = 90 * time.Second

// A Go group of four on a skewed backlog (committed at 0, never committed
// further) holds the sidecar's balanced answer: every member's note says so,
// the sidecar sees its answer live, the worst member's lag is the one the
// sidecar gives any shim's group of four on these lags, and at most half of
// what franz-go's range balancer gives the same members. The sidecar reads
// the leader's note from the group: assigned by the sidecar.
func TestAGroupOfFourIsBalancedByLag(t *testing.T) {
	group := name("four")
	topics := []string{name("topic"), name("topic"), name("topic")}
	lags := backlog(t, group, topics, skew)
	total := totalOf(lags)
	sidecarSees(t, group, total)

	var members []*member
	for i := 0; i < 4; i++ {
		members = append(members, startMember(t, fmt.Sprintf("go-%d", i), group, topics, memberOptions{}))
	}
	held := settled(t, members, lags, joinTimeout)
	onTheSidecarsAnswer(t, members)
	var report *groupReport
	err := eventually(60*time.Second, "the live assignment is the sidecar's last answer", func() (bool, string) {
		var err error
		report, err = sidecar.group(group)
		if err != nil || report == nil {
			return false, fmt.Sprint(err)
		}
		if report.AssignedBy == nil {
			return false, "assigned_by unknown yet"
		}
		return report.LiveVsLastAnswer.Status == "matches", report.LiveVsLastAnswer.Status
	})
	if err != nil {
		t.Fatal(err)
	}
	// The sidecar reads the Go leader's note from the group itself (DescribeGroups).
	if by := report.AssignedBy; by.By != "sidecar" || by.Reason != nil {
		t.Fatalf("the sidecar reads the group as assigned by %+v", *by)
	}

	worst := worstOf(held, lags)
	if answered := *report.LastAnswers[0].MaxLag; answered != worst {
		t.Fatalf("the worst member's lag is %d, the sidecar's last answer says %d", worst, answered)
	}
	if python := sidecarMaxLag(t, group, 4, topics, lags); worst > python {
		t.Fatalf("the worst Go member's lag %d is above the sidecar's answer to a group of four, %d", worst, python)
	}
	ranged := rangeWorst(t, members, topics, lags)
	if worst*2 > ranged {
		t.Fatalf("the worst member's lag %d is not at most half of range's %d", worst, ranged)
	}
	leaders := int64(0)
	for _, m := range members {
		for _, decision := range m.log.at(slog.LevelInfo) {
			t.Log(decision)
		}
		leaders += m.balancer.Answers()
		if m.balancer.Fallbacks() != 0 || len(m.log.at(slog.LevelWarn)) != 0 {
			t.Fatalf("%s fell back or warned: %v", m.name, m.log.at(slog.LevelWarn))
		}
	}
	if leaders == 0 {
		t.Fatal("no member counts the sidecar's answers")
	}
	t.Logf("worst member's lag %d (range: %d) of %d", worst, ranged, total)
}
