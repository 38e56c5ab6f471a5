package lagassign

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// randomGroup is a seeded group: members of two subscriptions over a few
// topics, and one valid assignment of every partition to a subscriber.
func randomGroup(random *rand.Rand) (*groupView, map[string]map[string][]int32, []string) {
	topics := []string{"audit", "orders", "payments", "refunds"}[:2+random.IntN(3)]
	counts := map[string]int32{}
	for _, topic := range topics {
		counts[topic] = int32(1 + random.IntN(6))
	}
	members := 1 + random.IntN(5)
	var joined []kmsg.JoinGroupResponseMember
	var metas []kmsg.ConsumerMemberMetadata
	for m := 0; m < members; m++ {
		subscribed := topics
		if m%2 == 1 {
			subscribed = topics[:1]
		}
		joined = append(joined, kmsg.JoinGroupResponseMember{MemberID: fmt.Sprintf("c-%d", m)})
		metas = append(metas, kmsg.ConsumerMemberMetadata{Topics: subscribed})
	}
	view, err := newGroupView("g", joined, metas, counts, false)
	if err != nil {
		panic(err)
	}
	assignment := map[string]map[string][]int32{}
	for _, m := range view.members {
		assignment[m.id] = map[string][]int32{}
	}
	for _, topic := range topics {
		var subscribers []string
		for _, m := range view.members {
			if _, ok := indexOf(view.topicsOf(m), topic); ok {
				subscribers = append(subscribers, m.id)
			}
		}
		for p := int32(0); p < counts[topic]; p++ {
			owner := subscribers[random.IntN(len(subscribers))]
			assignment[owner][topic] = append(assignment[owner][topic], p)
		}
	}
	// The answer's topic order: the request's partitions keys, shuffled to test the indices.
	names := slicesOf(topics)
	random.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	return view, assignment, names
}

func indexOf(list []string, item string) (int, bool) {
	for i, x := range list {
		if x == item {
			return i, true
		}
	}
	return -1, false
}

func slicesOf(list []string) []string { return append([]string(nil), list...) }

// answerIn writes the assignment as a packed answer over names.
func answerIn(assignment map[string]map[string][]int32, names []string) []byte {
	members := map[string]any{}
	for member, topics := range assignment {
		var indices, ids []uint32
		for i, name := range names {
			partitions := append([]int32(nil), topics[name]...)
			sort.Slice(partitions, func(a, b int) bool { return partitions[a] < partitions[b] })
			for _, p := range partitions {
				indices = append(indices, uint32(i))
				ids = append(ids, uint32(p))
			}
		}
		members[member] = map[string]string{"topic_indices": packed(indices...), "partitions": packed(ids...)}
	}
	body := map[string]any{"topics": names, "assignment": members, "revoked": map[string]any{},
		"lag": map[string]any{"source": "kafka", "complete": true, "unknown_partitions": 0}}
	raw, _ := json.Marshal(body)
	return raw
}

// A seeded run of random groups: a valid answer reads as its assignment; the
// answer with one partition given to a second member, or left out, is refused
// as invalid.
func TestARandomAnswerReadsAsItsAssignmentAndABrokenOneIsRefused(t *testing.T) {
	random := rand.New(rand.NewPCG(30, 2026))
	for run := 0; run < 300; run++ {
		view, assignment, names := randomGroup(random)
		want := map[string]map[string][]int32{}
		for member, topics := range assignment {
			want[member] = map[string][]int32{}
			for topic, ids := range topics {
				want[member][topic] = ids
			}
		}
		got, err := readAnswer(answerIn(assignment, names), view)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if !reflect.DeepEqual(got.assignment.asMap(), want) {
			t.Fatalf("run %d: read %v, want %v", run, got.assignment.asMap(), want)
		}
		// Break it: the first partition of the first member that has one, dropped or doubled.
		for _, member := range sortedKeys(assignment) {
			topic := ""
			for _, name := range sortedKeys(assignment[member]) {
				topic = name
				break
			}
			if topic == "" {
				continue
			}
			broken := map[string]map[string][]int32{}
			for m, topics := range assignment {
				broken[m] = map[string][]int32{}
				for name, ids := range topics {
					broken[m][name] = append([]int32(nil), ids...)
				}
			}
			// c-0 subscribes to every topic: another member's partition given to it
			// too is given twice; its own dropped is left out.
			first := assignment[member][topic][0]
			if member != "c-0" && run%2 == 1 {
				broken["c-0"][topic] = append(broken["c-0"][topic], first)
			} else {
				broken[member][topic] = broken[member][topic][1:]
			}
			_, err := readAnswer(answerIn(broken, names), view)
			var why *fallbackError
			if !errors.As(err, &why) || why.reason != ReasonInvalid {
				t.Fatalf("run %d: broken answer %v read with %v", run, broken, err)
			}
			break
		}
	}
}
