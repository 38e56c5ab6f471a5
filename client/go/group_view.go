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
}

// newGroupView reads the members' metadata (as franz-go's ConsumerBalancer
// parsed it) and the topic counts the client gives the balancer.
func newGroupView(groupID string, joined []kmsg.JoinGroupResponseMember,
	metas []kmsg.ConsumerMemberMetadata, counts map[string]int32) (*groupView, error) {
	view := &groupView{groupID: groupID, partitions: map[string]int32{}}
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

// requestBody is the POST /assign body (docs/http-api.md) in the compact form:
// each distinct subscription once, each member naming its own by index, the
// answer asked for in the packed form; an eager rebalance. A member's owned
// partitions are those the leader's metadata knows.
func (v *groupView) requestBody(strategy, resetPolicy string) []byte {
	w := &jsonWriter{out: make([]byte, 0, 4096)}
	w.raw(`{"group_id":`)
	w.string(v.groupID)
	w.raw(`,"subscriptions":[`)
	for i, topics := range v.subscriptions {
		if i > 0 {
			w.raw(",")
		}
		w.raw("[")
		for j, topic := range topics {
			if j > 0 {
				w.raw(",")
			}
			w.string(topic)
		}
		w.raw("]")
	}
	w.raw(`],"members":[`)
	for i, m := range v.asked() {
		if i > 0 {
			w.raw(",")
		}
		w.raw(`{"member_id":`)
		w.string(m.id)
		w.raw(`,"group_instance_id":`)
		w.optional(m.instanceID)
		w.raw(`,"subscription":`)
		w.int(int64(m.subscription))
		w.raw(`,"owned":{`)
		v.writeOwned(w, m.userData.owned)
		w.raw(`},"generation":`)
		if m.userData.generation == nil {
			w.raw("null")
		} else {
			w.int(int64(*m.userData.generation))
		}
		w.raw(`,"rack":`)
		w.optional(m.userData.rack)
		w.raw("}")
	}
	w.raw(`],"partitions":{`)
	for i, topic := range sortedKeys(v.partitions) {
		if i > 0 {
			w.raw(",")
		}
		w.string(topic)
		w.raw(":")
		w.int(int64(v.partitions[topic]))
	}
	w.raw(`},"protocol":"eager","answer_form":"packed"`)
	if strategy != "" {
		w.raw(`,"strategy":`)
		w.string(strategy)
	}
	if resetPolicy != "" {
		w.raw(`,"reset_policy":`)
		w.string(resetPolicy)
	}
	w.raw("}")
	return w.out
}

// writeOwned writes the owned partitions the view knows, topics in name order.
func (v *groupView) writeOwned(w *jsonWriter, owned []topicPartitions) {
	first := true
	for _, tp := range owned {
		count, known := v.partitions[tp.topic]
		if !known {
			continue
		}
		started := false
		for _, p := range tp.partitions {
			if p >= count {
				continue
			}
			if !started {
				if !first {
					w.raw(",")
				}
				w.string(tp.topic)
				w.raw(":[")
				started, first = true, false
			} else {
				w.raw(",")
			}
			w.int(int64(p))
		}
		if started {
			w.raw("]")
		}
	}
}
