package lagassign

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ProtocolName is the group protocol of every lagassign shim (Go, Java,
// Python), so their consumers share a group.
const ProtocolName = "lagassign"

// Balancer is a kgo.GroupBalancer: listed in kgo.Balancers, the group leader
// asks the sidecar for the assignment and falls back to franz-go's range
// balancer on any problem. Eager, as its fallback is.
type Balancer struct {
	cfg resolved
	// cooperative: NewCooperative's balancer.
	cooperative bool
	sidecar     *sidecar
	counters    decisionCounters

	mu         sync.Mutex
	led        leadership
	assignedBy *AssignmentNote
}

// leadership is the last rebalance this consumer led: who it was then, which
// generation, and the digest of the assignment it made.
type leadership struct {
	memberID   string
	generation int32
	digest     string
}

var _ kgo.GroupBalancer = (*Balancer)(nil)

// New checks the configuration and returns the balancer.
func New(cfg Config) (*Balancer, error) {
	checked, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	return &Balancer{cfg: checked, sidecar: newSidecar(checked.url, checked.token)}, nil
}

// ProtocolName is "lagassign", or "lagassign-cooperative" for NewCooperative's.
func (b *Balancer) ProtocolName() string {
	if b.cooperative {
		return CooperativeProtocolName
	}
	return ProtocolName
}

// IsCooperative is true for NewCooperative's balancer only.
func (b *Balancer) IsCooperative() bool { return b.cooperative }

// JoinGroupMetadata is the consumer protocol's subscription with the
// lagassign user data: the partitions this member holds, their generation,
// its static id and rack.
func (b *Balancer) JoinGroupMetadata(interests []string, current map[string][]int32, generation int32) []byte {
	data := SubscriptionUserData{Owned: current, InstanceID: b.cfg.instanceID, Rack: b.cfg.rack}
	if generation >= 0 {
		data.Generation = &generation
	}
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Version = 3
	meta.Topics = interests
	if b.cooperative {
		data.carried = cooperativeStickyUserData(generation)
	}
	meta.UserData = data.encode()
	for _, topic := range sortedKeys(current) {
		owned := kmsg.NewConsumerMemberMetadataOwnedPartition()
		owned.Topic = topic
		owned.Partitions = current[topic]
		meta.OwnedPartitions = append(meta.OwnedPartitions, owned)
	}
	meta.Generation = generation
	meta.Rack = b.cfg.rack
	return meta.AppendTo(nil)
}

// ParseSyncAssignment reads this member's assignment and who made it.
func (b *Balancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	given, note, ok, err := parseSyncAssignment(assignment)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.assignedBy = nil
	if ok {
		b.assignedBy = &note
	}
	b.mu.Unlock()
	return given, nil
}

// MemberBalancer parses the members' metadata for the leader's balance.
func (b *Balancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	balancer, err := kgo.NewConsumerBalancer(b, members)
	if err != nil {
		return nil, nil, err
	}
	return balancer, balancer.MemberTopics(), nil
}

// Balance is the leader's decision: the sidecar's answer, checked, or range.
func (b *Balancer) Balance(members *kgo.ConsumerBalancer, topics map[string]int32) kgo.IntoSyncAssignment {
	started := time.Now()
	info := members.Info()
	var joined []kmsg.JoinGroupResponseMember
	var metas []kmsg.ConsumerMemberMetadata
	members.EachMember(func(member *kmsg.JoinGroupResponseMember, meta *kmsg.ConsumerMemberMetadata) {
		joined = append(joined, *member)
		metas = append(metas, *meta)
	})
	answer, view, err := b.ask(info.Group, joined, metas, topics, started)
	var noted notedAssignment
	var decision Decision
	if err == nil {
		outcome := answer.outcome()
		noted = notedAssignment{assignment: answer.assignment,
			note: AssignmentNote{By: BySidecar, Strategy: answer.strategy}}
		if outcome != OutcomeSidecar {
			noted.note.Reason = outcome
		}
		decision = Decision{Outcome: outcome, Note: noted.note, Elapsed: time.Since(started)}
		b.logAnswer(info.Group, decision, answer, view)
	} else {
		var why *fallbackError
		if !errors.As(err, &why) {
			why = fallback(ReasonUnreachable, "%v", err)
		}
		by, kafkas := ByRange, kgo.RangeBalancer()
		if b.cooperative {
			by, kafkas = ByCooperativeSticky, kgo.CooperativeStickyBalancer()
		}
		ranged, rangeErr := fallbackAssignment(kafkas, members.Members(), topics)
		if rangeErr != nil {
			members.SetError(rangeErr)
			return nil
		}
		noted = notedAssignment{assignment: ranged, note: AssignmentNote{By: by, Reason: why.reason}}
		decision = Decision{Outcome: why.reason, Note: noted.note, Message: why.message, Elapsed: time.Since(started)}
		b.cfg.logger.Warn(fmt.Sprintf("lagassign: group %s falls back to the %s assignor (%s): %s; %d members, "+
			"%d partitions, member lag unknown, %s ms", info.Group, by, why.reason, why.message, len(joined),
			ranged.partitionCount(), millis(decision.Elapsed)),
			"group", info.Group, "outcome", why.reason)
	}
	b.counters.count(decision)
	b.mu.Lock()
	b.led = leadership{memberID: info.LeaderID, generation: info.Generation, digest: assignmentDigest(noted.assignment)}
	b.mu.Unlock()
	return noted
}

// ask builds the view, sends the request within the deadline and checks the answer.
func (b *Balancer) ask(group string, joined []kmsg.JoinGroupResponseMember, metas []kmsg.ConsumerMemberMetadata,
	topics map[string]int32, started time.Time) (*answer, *groupView, error) {
	view, err := newGroupView(group, joined, metas, topics, b.cooperative)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithDeadline(context.Background(), started.Add(b.cfg.timeout))
	defer cancel()
	body, err := b.sidecar.postAssign(ctx, view.requestBody(b.cfg.strategy, b.cfg.resetPolicy), b.cfg.timeout)
	if err != nil {
		return nil, view, err
	}
	answer, err := readAnswer(body, view)
	return answer, view, err
}

func (b *Balancer) logAnswer(group string, decision Decision, answer *answer, view *groupView) {
	maxLag, meanLag, source := "?", "?", "?"
	if answer.maxLag != nil {
		maxLag = fmt.Sprint(*answer.maxLag)
	}
	if answer.meanLag != nil {
		meanLag = fmt.Sprintf("%.1f", *answer.meanLag)
	}
	if answer.lagSource != "" {
		source = answer.lagSource
	}
	numbers := fmt.Sprintf("%d members, %d partitions, max member lag %s, mean member lag %s, lag source %s, %s ms",
		len(view.members), view.partitionCount(), maxLag, meanLag, source, millis(decision.Elapsed))
	strategy := answer.strategy
	if strategy == "" {
		strategy = "?"
	}
	if decision.Outcome != OutcomeSidecar {
		b.cfg.logger.Warn(fmt.Sprintf("lagassign: group %s assigned by the sidecar (%s) without full lag (%s): %s; %s",
			group, strategy, decision.Outcome, answer.blindness(), numbers), "group", group, "outcome", decision.Outcome)
		return
	}
	b.cfg.logger.Info(fmt.Sprintf("lagassign: group %s assigned by the sidecar (%s): %s", group, strategy, numbers),
		"group", group, "outcome", decision.Outcome)
}

// fallbackAssignment is the plan of franz-go's own balancer (range, or
// cooperative-sticky for a cooperative group) for the same members.
func fallbackAssignment(kafkas kgo.GroupBalancer, members []kmsg.JoinGroupResponseMember,
	topics map[string]int32) (groupAssignment, error) {
	balancer, _, err := kafkas.MemberBalancer(members)
	if err != nil {
		return nil, err
	}
	var into kgo.IntoSyncAssignment
	if withError, ok := balancer.(kgo.GroupMemberBalancerOrError); ok {
		if into, err = withError.BalanceOrError(topics); err != nil {
			return nil, err
		}
	} else {
		into = balancer.Balance(topics)
	}
	plan, ok := into.(*kgo.BalancePlan)
	if !ok {
		return nil, fmt.Errorf("lagassign: franz-go's %s balancer returned %T, not a plan", kafkas.ProtocolName(), into)
	}
	return assignmentOf(plan.AsMemberIDMap()), nil
}

func millis(elapsed time.Duration) string {
	return fmt.Sprintf("%.1f", float64(elapsed.Microseconds())/1000)
}

// Decisions is every rebalance this consumer led, by outcome (zeros included).
func (b *Balancer) Decisions() map[string]int64 {
	counts, _ := b.counters.snapshot()
	return counts
}

// Answers is how many rebalances this consumer led on the sidecar's answer
// (lag-blind ones included).
func (b *Balancer) Answers() int64 {
	counts, _ := b.counters.snapshot()
	return counts[OutcomeSidecar] + counts[OutcomeLagBlind] + counts[OutcomeLagPartial]
}

// Fallbacks is how many rebalances this consumer led on franz-go's balancer.
func (b *Balancer) Fallbacks() int64 {
	counts, _ := b.counters.snapshot()
	total := int64(0)
	for _, reason := range FallbackReasons {
		total += counts[reason]
	}
	return total
}

// LastDecision is the last rebalance this consumer led; ok is false before the first.
func (b *Balancer) LastDecision() (Decision, bool) {
	_, last := b.counters.snapshot()
	if last == nil {
		return Decision{}, false
	}
	return *last, true
}

// AssignedBy is the leader's note on this consumer's current assignment; ok
// is false when the leader wrote none of lagassign's.
func (b *Balancer) AssignedBy() (AssignmentNote, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.assignedBy == nil {
		return AssignmentNote{}, false
	}
	return *b.assignedBy, true
}

// ledDigest is the digest of the assignment this consumer made when it led
// generation as memberID; ok is false when it did not lead that generation.
func (b *Balancer) ledDigest(memberID string, generation int32) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.led.memberID == "" || b.led.memberID != memberID || b.led.generation != generation {
		return "", false
	}
	return b.led.digest, true
}
