package grouptest

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"testing"
	"time"

	lagassign "github.com/lagassign/lagassign/client/go"
	"github.com/twmb/franz-go/pkg/kgo"
)

// member is one real franz-go consumer with the lagassign balancer, polling
// in a goroutine of its own: what it holds, what it read, what it logged.
type member struct {
	name     string
	client   *kgo.Client
	balancer *lagassign.Balancer
	advisor  *lagassign.Advisor
	log      *logLines

	mu   sync.Mutex
	held map[partition]bool
	read map[partition]map[int64]bool
	// revoked counts how often each partition was taken from the member.
	revoked map[partition]int

	cancel context.CancelFunc
	done   chan struct{}
}

// memberOptions are what a test changes of a member.
type memberOptions struct {
	url        string
	timeout    time.Duration
	instanceID string
	advise     bool
	// cooperative: lagassign.NewCooperative's balancer.
	cooperative bool
}

// startMember starts a consumer of topics in group that never commits.
func startMember(t *testing.T, name, group string, topics []string, options memberOptions) *member {
	t.Helper()
	m := &member{name: name, log: &logLines{}, held: map[partition]bool{}, read: map[partition]map[int64]bool{},
		revoked: map[partition]int{}, done: make(chan struct{})}
	url := options.url
	if url == "" {
		url = sidecar.url
	}
	newBalancer := lagassign.New
	if options.cooperative {
		newBalancer = lagassign.NewCooperative
	}
	balancer, err := newBalancer(lagassign.Config{URL: url, Timeout: options.timeout,
		InstanceID: options.instanceID, Logger: slog.New(m.log)})
	if err != nil {
		t.Fatal(err)
	}
	m.balancer = balancer
	opts := []kgo.Opt{
		kgo.SeedBrokers(broker.bootstrap),
		kgo.ClientID(name),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topics...),
		kgo.Balancers(balancer),
		kgo.DisableAutoCommit(),
		kgo.SessionTimeout(10 * time.Second),
		kgo.HeartbeatInterval(500 * time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, given map[string][]int32) {
			m.change(given, true)
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, taken map[string][]int32) {
			m.change(taken, false)
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, taken map[string][]int32) {
			m.change(taken, false)
		}),
	}
	if options.instanceID != "" {
		opts = append(opts, kgo.InstanceID(options.instanceID))
	}
	client, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	m.client = client
	if options.advise {
		m.advisor, err = lagassign.NewAdvisor(client, balancer, lagassign.AdvisorConfig{Every: 500 * time.Millisecond,
			Logger: slog.New(m.log)})
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go m.poll(ctx)
	t.Cleanup(m.stop)
	return m
}

// A member polls at most this long and this many times, whatever the test does.
const (
	memberLifetime = 5 * time.Minute
	memberPolls    = 100_000
)

func (m *member) poll(ctx context.Context) {
	defer close(m.done)
	ctx, cancel := context.WithTimeout(ctx, memberLifetime)
	defer cancel()
	for polls := 0; polls < memberPolls && ctx.Err() == nil; polls++ {
		polled, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fetches := m.client.PollFetches(polled)
		cancel()
		m.mu.Lock()
		fetches.EachRecord(func(r *kgo.Record) {
			p := partition{r.Topic, r.Partition}
			if m.read[p] == nil {
				m.read[p] = map[int64]bool{}
			}
			m.read[p][r.Offset] = true
		})
		m.mu.Unlock()
		if m.advisor != nil {
			m.advisor.MaybeRebalance()
		}
	}
}

func (m *member) change(partitions map[string][]int32, given bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for topic, ids := range partitions {
		for _, id := range ids {
			if given {
				m.held[partition{topic, id}] = true
			} else {
				delete(m.held, partition{topic, id})
				m.revoked[partition{topic, id}]++
			}
		}
	}
}

// revokedCount is how often p was taken from the member.
func (m *member) revokedCount(p partition) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.revoked[p]
}

// holding is the partitions the member holds now.
func (m *member) holding() []partition {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]partition, 0, len(m.held))
	for p := range m.held {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// readCount is how many distinct records the member has read.
func (m *member) readCount() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	total := int64(0)
	for _, offsets := range m.read {
		total += int64(len(offsets))
	}
	return total
}

// stop leaves the group and closes the client (once).
func (m *member) stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.cancel = nil
	<-m.done
	m.client.Close()
}

// settled waits until the members hold every partition exactly once, all in
// one generation, each with the leader's note; it returns what each holds.
func settled(t *testing.T, members []*member, all map[partition]int64, timeout time.Duration) map[string][]partition {
	t.Helper()
	var held map[string][]partition
	err := eventually(timeout, "the group holds every partition once", func() (bool, string) {
		held = map[string][]partition{}
		owners := map[partition]int{}
		generations := map[int32]bool{}
		for _, m := range members {
			held[m.name] = m.holding()
			for _, p := range held[m.name] {
				owners[p]++
			}
			_, generation := m.client.GroupMetadata()
			generations[generation] = true
			if _, ok := m.balancer.AssignedBy(); !ok {
				return false, m.name + " has no note yet"
			}
		}
		if len(generations) != 1 {
			return false, fmt.Sprintf("generations %v", generations)
		}
		for p := range all {
			if owners[p] != 1 {
				return false, fmt.Sprintf("%s held by %d members", p, owners[p])
			}
		}
		return len(owners) == len(all), fmt.Sprintf("%d partitions held", len(owners))
	})
	if err != nil {
		t.Fatal(err)
	}
	return held
}

// onTheSidecarsAnswer fails the test unless every member's last assignment is
// the sidecar's balanced answer.
func onTheSidecarsAnswer(t *testing.T, members []*member) {
	t.Helper()
	for _, m := range members {
		note, _ := m.balancer.AssignedBy()
		if note != (lagassign.AssignmentNote{By: lagassign.BySidecar, Strategy: "balanced"}) {
			t.Fatalf("%s was assigned by %+v", m.name, note)
		}
	}
}

// worstOf is the worst member's lag: the largest lagOf what each holds.
func worstOf(held map[string][]partition, lags map[partition]int64) int64 {
	worst := int64(0)
	for _, partitions := range held {
		worst = max(worst, lagOf(partitions, lags))
	}
	return worst
}

// lagOf is the sum of the lags of partitions.
func lagOf(partitions []partition, lags map[partition]int64) int64 {
	total := int64(0)
	for _, p := range partitions {
		total += lags[p]
	}
	return total
}
