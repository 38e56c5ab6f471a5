package lagassign

import (
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// member is one member's subscription as the leader received it.
type member struct {
	id string
	// instanceID is the static id the broker reports, else the one in the user data.
	instanceID *string
	// subscription indexes the view's subscriptions: the member's subscribed
	// topics the leader has metadata for; -1 when it has none.
	subscription int
	userData     memberUserData
}

// groupView is the group as the leader sees it in one rebalance. The leader's
// metadata is authoritative: partitions holds the count of every subscribed
// topic it knows; a topic without metadata is left out of the request and of
// every member's topics, as range leaves it out.
type groupView struct {
	groupID    string
	members    []member // by member id
	partitions map[string]int32
	// subscriptions are the distinct sorted topic lists of the members, in the
	// order first met in member id order; members mostly share one.
	subscriptions [][]string
	// cooperative: a cooperative rebalance, each member's owned partitions and
	// generation as Kafka's consumer protocol reports them.
	cooperative bool
}

// newGroupView reads the members' metadata (as franz-go's ConsumerBalancer
// parsed it) and the topic counts the client gives the balancer.
func newGroupView(groupID string, joined []kmsg.JoinGroupResponseMember,
	metas []kmsg.ConsumerMemberMetadata, counts map[string]int32, cooperative bool) (*groupView, error) {
	view := &groupView{groupID: groupID, partitions: map[string]int32{}, cooperative: cooperative}
	subscribed := map[string]bool{}
	for i := range joined {
		for _, topic := range metas[i].Topics {
			subscribed[topic] = true
		}
	}
	for topic := range subscribed {
		if count, ok := counts[topic]; ok && count > 0 {
			view.partitions[topic] = count
		}
	}
	if len(subscribed) > 0 && len(view.partitions) == 0 {
		return nil, fallback(ReasonMetadata, "no subscribed topic has metadata yet")
	}
	order := make([]int, len(joined))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return joined[order[a]].MemberID < joined[order[b]].MemberID })
	index := map[string]int{}
	names := interner{}
	previous, previousAt := []string(nil), -1
	for _, i := range order {
		userData := decodeSubscription(metas[i].UserData, names)
		if cooperative {
			userData.useKafkaOwnership(&metas[i], names)
		}
		m := member{id: joined[i].MemberID, instanceID: joined[i].InstanceID, userData: userData, subscription: -1}
		if m.instanceID == nil {
			m.instanceID = userData.instanceID
		}
		if m.userData.rack == nil {
			// franz-go writes the consumer's kgo.Rack into the metadata.
			m.userData.rack = metas[i].Rack
		}
		if previous != nil && slices.Equal(metas[i].Topics, previous) {
			// Members mostly list one subscription: the one before's, read once.
			m.subscription = previousAt
			view.members = append(view.members, m)
			continue
		}
		var topics []string
		for _, topic := range metas[i].Topics {
			if _, known := view.partitions[topic]; known {
				topics = append(topics, topic)
			}
		}
		if len(topics) > 0 {
			slices.Sort(topics)
			topics = slices.Compact(topics)
			key := strings.Join(topics, "\x00")
			at, seen := index[key]
			if !seen {
				at = len(view.subscriptions)
				index[key] = at
				view.subscriptions = append(view.subscriptions, topics)
			}
			m.subscription = at
		}
		previous, previousAt = metas[i].Topics, m.subscription
		view.members = append(view.members, m)
	}
	return view, nil
}

// topicsOf is a member's subscribed topics with metadata, sorted.
func (v *groupView) topicsOf(m member) []string {
	if m.subscription < 0 {
		return nil
	}
	return v.subscriptions[m.subscription]
}

// asked is the members the request names: those with a topic the leader knows.
func (v *groupView) asked() []member {
	var out []member
	for _, m := range v.members {
		if m.subscription >= 0 {
			out = append(out, m)
		}
	}
	return out
}

// partitionCount is how many partitions the request names.
func (v *groupView) partitionCount() int {
	total := 0
	for _, count := range v.partitions {
		total += int(count)
	}
	return total
}
