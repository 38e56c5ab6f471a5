package lagassign

import (
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lagassign/lagassign/client/go/internal/sidecartest"
)

// leaderMember is a consumer that led generation 5 as m-1.
type leaderMember struct{ forced atomic.Int32 }

func (*leaderMember) GroupMetadata() (string, int32) { return "m-1", 5 }
func (l *leaderMember) ForceRebalance()              { l.forced.Add(1) }

// A sidecar nobody listens for: the leader keeps asking (at most every Every),
// forces nothing, and logs one WARNING for the whole stretch.
func TestAnUnreachableSidecarForcesNothingAndWarnsOnce(t *testing.T) {
	balancer, err := New(Config{URL: sidecartest.DownURL(t), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	balancer.led = leadership{memberID: "m-1", generation: 5, digest: "72ad50af9b0c62e8"}
	member := &leaderMember{}
	advisor, err := newAdvisor(member, balancer, AdvisorConfig{Group: "orders", Every: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for calls := 0; advisor.Requests() < 4 && calls < 100_000 && time.Now().Before(deadline); calls++ {
		if advisor.MaybeRebalance() {
			t.Fatal("a rebalance was forced without advice")
		}
		<-time.After(time.Millisecond)
	}
	if advisor.Requests() < 4 {
		t.Fatalf("%d requests in 10 s", advisor.Requests())
	}
	if advisor.Warnings() != 1 || member.forced.Load() != 0 {
		t.Fatalf("%d warnings, %d rebalances forced", advisor.Warnings(), member.forced.Load())
	}
}

// A member that did not lead the current generation never asks.
func TestAFollowerNeverAsks(t *testing.T) {
	balancer, err := New(Config{URL: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	balancer.led = leadership{memberID: "m-1", generation: 4, digest: "72ad50af9b0c62e8"}
	advisor, err := newAdvisor(&leaderMember{}, balancer, AdvisorConfig{Group: "orders", Every: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for calls := 0; calls < 100; calls++ {
		advisor.MaybeRebalance()
	}
	if advisor.Requests() != 0 {
		t.Fatalf("a follower sent %d requests", advisor.Requests())
	}
}
