package grouptest

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	lagassign "github.com/lagassign/lagassign/client/go"
	"github.com/lagassign/lagassign/client/go/internal/sidecartest"
)

// A cooperative Go group of two on a skewed backlog; a third member joins.
// The group settles on the sidecar's answer, and every partition the first
// two keep through the join is never revoked from them: only the partitions
// that move are (the sidecar withholds them, their owners revoke them, and
// franz-go's follow-up rebalance gives them to the new member).
func TestACooperativeGroupMovesOnlyWhatChanges(t *testing.T) {
	group := name("cooperative")
	topics := []string{name("topic"), name("topic")}
	lags := backlog(t, group, topics, skew)
	total := totalOf(lags)
	sidecarSees(t, group, total)
	options := memberOptions{cooperative: true}
	members := []*member{
		startMember(t, "go-coop-0", group, topics, options),
		startMember(t, "go-coop-1", group, topics, options),
	}
	before := settled(t, members, lags, joinTimeout)
	members = append(members, startMember(t, "go-coop-2", group, topics, options))
	after := settled(t, members, lags, joinTimeout)

	onTheSidecarsAnswer(t, members)
	moved := 0
	for _, m := range members[:2] {
		kept := map[partition]bool{}
		for _, p := range after[m.name] {
			kept[p] = true
		}
		for _, p := range before[m.name] {
			switch {
			case kept[p] && m.revokedCount(p) != 0:
				t.Fatalf("%s kept %s but it was revoked %d times", m.name, p, m.revokedCount(p))
			case !kept[p]:
				moved++
				if m.revokedCount(p) == 0 {
					t.Fatalf("%s lost %s without revoking it", m.name, p)
				}
			}
		}
	}
	if moved == 0 || len(after["go-coop-2"]) == 0 {
		t.Fatalf("nothing moved to the new member: before %v, after %v", before, after)
	}
	t.Logf("%d partitions moved to the new member, the rest kept; worst member's lag %d of %d", moved,
		worstOf(after, lags), total)
}

// A cooperative member whose sidecar is down reads its backlog on franz-go's
// cooperative-sticky balancer, with one warning.
func TestACooperativeFallbackIsCooperativeSticky(t *testing.T) {
	group := name("cooperative-fallback")
	topics := []string{name("topic")}
	lags := backlog(t, "", topics, []int{30, 20, 10})
	total := totalOf(lags)
	m := startMember(t, "go-coop-down", group, topics,
		memberOptions{url: sidecartest.DownURL(t), timeout: fallbackDeadline, cooperative: true})
	err := eventually(joinTimeout, "the member reads the whole backlog", func() (bool, string) {
		return m.readCount() == total, fmt.Sprintf("%d of %d records", m.readCount(), total)
	})
	if err != nil {
		t.Fatal(err)
	}
	warnings := m.log.at(slog.LevelWarn)
	want := fmt.Sprintf("lagassign: group %s falls back to the cooperative-sticky assignor (connection_refused): ", group)
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
		t.Fatalf("warnings %q, want one starting %q", warnings, want)
	}
	note, _ := m.balancer.AssignedBy()
	if note != (lagassign.AssignmentNote{By: lagassign.ByCooperativeSticky, Reason: lagassign.ReasonConnectionRefused}) {
		t.Fatalf("note %+v", note)
	}
}
