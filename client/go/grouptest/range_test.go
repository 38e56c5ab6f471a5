package grouptest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rangeWorst is the worst member's lag under franz-go's range balancer, for
// the same members on the same partitions.
func rangeWorst(t *testing.T, members []*member, topics []string, lags map[partition]int64) int64 {
	t.Helper()
	counts := map[string]int32{}
	for p := range lags {
		if p.id+1 > counts[p.topic] {
			counts[p.topic] = p.id + 1
		}
	}
	var joined []kmsg.JoinGroupResponseMember
	for _, m := range members {
		id, _ := m.client.GroupMetadata()
		meta := kmsg.NewConsumerMemberMetadata()
		meta.Topics = topics
		joined = append(joined, kmsg.JoinGroupResponseMember{MemberID: id, ProtocolMetadata: meta.AppendTo(nil)})
	}
	sort.Slice(joined, func(i, j int) bool { return joined[i].MemberID < joined[j].MemberID })
	balancer, _, err := kgo.RangeBalancer().MemberBalancer(joined)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := balancer.(kgo.GroupMemberBalancerOrError).BalanceOrError(counts)
	if err != nil {
		t.Fatal(err)
	}
	worst := int64(0)
	for _, given := range plan.(*kgo.BalancePlan).AsMemberIDMap() {
		lag := int64(0)
		for topic, ids := range given {
			for _, p := range ids {
				lag += lags[partition{topic, p}]
			}
		}
		worst = max(worst, lag)
	}
	return worst
}

// sidecarMaxLag is the worst member's lag in the sidecar's answer to members
// of one subscription on lags given in the request: the answer whichever
// shim's leader asks (the Python group's of tests/client included).
func sidecarMaxLag(t *testing.T, group string, members int, topics []string, lags map[partition]int64) int64 {
	t.Helper()
	partitions := map[string]int{}
	perTopic := map[string][]int64{}
	for _, topic := range topics {
		for p := int32(0); ; p++ {
			lag, ok := lags[partition{topic, p}]
			if !ok {
				break
			}
			perTopic[topic] = append(perTopic[topic], lag)
		}
		partitions[topic] = len(perTopic[topic])
	}
	var list []map[string]any
	for i := 0; i < members; i++ {
		list = append(list, map[string]any{"member_id": "py-" + string(rune('a'+i)), "topics": topics})
	}
	body, _ := json.Marshal(map[string]any{"group_id": group, "members": list, "partitions": partitions,
		"lags": perTopic})
	response, err := http.Post(sidecar.url+"/assign", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var answer struct {
		Stats struct {
			MaxLag int64 `json:"max_lag"`
		} `json:"stats"`
	}
	if response.StatusCode != http.StatusOK || json.NewDecoder(response.Body).Decode(&answer) != nil {
		t.Fatalf("POST /assign: %s", response.Status)
	}
	return answer.Stats.MaxLag
}
