package lagassignprom

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	lagassign "github.com/lagassign/lagassign/client/go"
	"github.com/lagassign/lagassign/client/go/internal/sidecartest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// One rebalance led against a port where nothing listens: a fallback
// (connection_refused), counted and scraped.
func TestTheCollectorCountsALedFallback(t *testing.T) {
	balancer, err := lagassign.New(lagassign.Config{URL: sidecartest.DownURL(t),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{"orders"}
	members, err := kgo.NewConsumerBalancer(balancer,
		[]kmsg.JoinGroupResponseMember{{MemberID: "c-1", ProtocolMetadata: meta.AppendTo(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if members.Info().Group != "" {
		t.Fatal("a balancer made without a client has no group")
	}
	if balancer.Balance(members, map[string]int32{"orders": 3}) == nil {
		t.Fatal("no assignment")
	}
	registry := prometheus.NewRegistry()
	registry.MustRegister(NewCollector(balancer, "orders-1"))
	want := `
# HELP lagassign_client_fallbacks_total Rebalances this consumer led on franz-go's range balancer.
# TYPE lagassign_client_fallbacks_total counter
lagassign_client_fallbacks_total{client_id="orders-1"} 1
# HELP lagassign_client_answers_total Rebalances this consumer led on the sidecar's answer (lag-blind ones included).
# TYPE lagassign_client_answers_total counter
lagassign_client_answers_total{client_id="orders-1"} 0
`
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want),
		"lagassign_client_fallbacks_total", "lagassign_client_answers_total"); err != nil {
		t.Fatal(err)
	}
	series, err := testutil.GatherAndCount(registry, "lagassign_client_decisions_total")
	if err != nil || series != len(lagassign.Outcomes) {
		t.Fatalf("%d decision series, %v", series, err)
	}
	if got := balancer.Decisions()[lagassign.ReasonConnectionRefused]; got != 1 {
		t.Fatalf("connection_refused counted %d times", got)
	}
}
