package grouptest

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	lagassign "github.com/lagassign/lagassign/client/go"
	"github.com/lagassign/lagassign/client/go/internal/sidecartest"
)

// fallbackDeadline is the shim's deadline in these tests.
const fallbackDeadline = 500 * time.Millisecond

// Every fault of the sidecar (nothing listening, an answer after the deadline,
// none at all, garbage, a refusal) leaves a new group (nothing committed) reading
// its whole backlog on franz-go's range balancer, with exactly one WARNING
// naming the reason, the reason counted and in every member's note, and the
// deadline kept.
func TestEveryFallbackLeavesTheGroupConsumingWithOneWarning(t *testing.T) {
	faults := []struct {
		name   string
		url    func(t *testing.T) string
		reason string
	}{
		{"down", sidecartest.DownURL, lagassign.ReasonConnectionRefused},
		{"slow", func(t *testing.T) string { return slowSidecar(t, 4*fallbackDeadline) }, lagassign.ReasonTimeout},
		{"hung", hungSidecar, lagassign.ReasonTimeout},
		{"garbage", garbageSidecar, lagassign.ReasonMalformed},
		// The real sidecar under a path it has no route for: 404, in its own error shape.
		{"status", func(*testing.T) string { return sidecar.url + "/no-such-prefix" }, lagassign.ReasonStatus},
	}
	for _, fault := range faults {
		t.Run(fault.name, func(t *testing.T) {
			t.Parallel() // a group, topics and fault of its own
			group := name("fallback-" + fault.name)
			topics := []string{name("topic"), name("topic")}
			lags := backlog(t, "", topics, []int{30, 20, 10})
			total := totalOf(lags)
			m := startMember(t, "go-"+fault.name, group, topics,
				memberOptions{url: fault.url(t), timeout: fallbackDeadline})
			err := eventually(joinTimeout, "the member reads the whole backlog", func() (bool, string) {
				return m.readCount() == total, fmt.Sprintf("%d of %d records", m.readCount(), total)
			})
			if err != nil {
				t.Fatal(err)
			}
			warnings := m.log.at(slog.LevelWarn)
			want := fmt.Sprintf("lagassign: group %s falls back to the range assignor (%s): ", group, fault.reason)
			if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
				t.Fatalf("warnings %q, want one starting %q", warnings, want)
			}
			note, _ := m.balancer.AssignedBy()
			if note != (lagassign.AssignmentNote{By: lagassign.ByRange, Reason: fault.reason}) {
				t.Fatalf("note %+v", note)
			}
			decision, _ := m.balancer.LastDecision()
			if m.balancer.Fallbacks() != 1 || m.balancer.Decisions()[fault.reason] != 1 || m.balancer.Answers() != 0 {
				t.Fatalf("counts %v", m.balancer.Decisions())
			}
			if decision.Elapsed > fallbackDeadline+500*time.Millisecond {
				t.Fatalf("the fallback took %v, past the %v deadline", decision.Elapsed, fallbackDeadline)
			}
			t.Logf("%s after %v", warnings[0], decision.Elapsed)
		})
	}
}
