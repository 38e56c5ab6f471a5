package lagassign

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// cooperativeView: c-1 owns orders-0 and orders-1 (as the metadata reports),
// c-2 owns nothing; both read orders (2 partitions).
func cooperativeView(t *testing.T) *groupView {
	t.Helper()
	owned := kmsg.NewConsumerMemberMetadataOwnedPartition()
	owned.Topic, owned.Partitions = "orders", []int32{1, 0}
	joined := []kmsg.JoinGroupResponseMember{{MemberID: "c-1"}, {MemberID: "c-2"}}
	metas := []kmsg.ConsumerMemberMetadata{
		{Topics: []string{"orders"}, OwnedPartitions: []kmsg.ConsumerMemberMetadataOwnedPartition{owned}, Generation: 4},
		{Topics: []string{"orders"}, Generation: -1},
	}
	v, err := newGroupView("g", joined, metas, map[string]int32{"orders": 2}, true)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func cooperativeAnswer(c1, c2, revoked string) string {
	return `{"topics": ["orders"], "assignment": {"c-1": ` + c1 + `, "c-2": ` + c2 + `}, "revoked": ` +
		revoked + `, "lag": {"source": "request", "complete": true, "unknown_partitions": 0}}`
}

// The request names the owned partitions and the generation Kafka's metadata reports.
func TestACooperativeRequestSaysSoWithKafkasOwnership(t *testing.T) {
	body := string(cooperativeView(t).requestBody("", ""))
	for _, want := range []string{`"owned":{"orders":[0,1]},"generation":4`, `"protocol":"cooperative"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("%s lacks %s", body, want)
		}
	}
}

func TestAWithheldPartitionIsPlacedAndAMoveMustBeRevokedFirst(t *testing.T) {
	none := packedMember()
	kept := cooperativeAnswer(packedMember([2]uint32{0, 0}), none, `{"c-1": `+packedMember([2]uint32{0, 1})+`}`)
	got, err := readAnswer([]byte(kept), cooperativeView(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]map[string][]int32{"c-1": {"orders": {0}}, "c-2": {}}; !reflect.DeepEqual(
		got.assignment.asMap(), want) {
		t.Fatalf("got %v", got.assignment.asMap())
	}
	cases := []struct{ name, body, message string }{
		{"moved straight", cooperativeAnswer(packedMember([2]uint32{0, 0}), packedMember([2]uint32{0, 1}), `{}`),
			"moves orders-1 from 'c-1' to 'c-2'"},
		{"withheld from a non-owner", cooperativeAnswer(packedMember([2]uint32{0, 0}), none,
			`{"c-2": `+packedMember([2]uint32{0, 1})+`}`), "withholds orders-1 from 'c-2', which does not own it"},
		{"given and withheld", cooperativeAnswer(packedMember([2]uint32{0, 0}, [2]uint32{0, 1}), none,
			`{"c-1": `+packedMember([2]uint32{0, 1})+`}`), "both gives orders-1"},
		{"left out", cooperativeAnswer(packedMember([2]uint32{0, 0}), none, `{}`), "leaves orders-1 unassigned"},
	}
	for _, c := range cases {
		_, err := readAnswer([]byte(c.body), cooperativeView(t))
		var why *fallbackError
		if !errors.As(err, &why) || why.reason != ReasonInvalid || !strings.Contains(why.message, c.message) {
			t.Fatalf("%s: got %v, want invalid containing %q", c.name, err, c.message)
		}
	}
}

// The cooperative balancer's subscription carries Kafka's CooperativeStickyAssignor user data.
func TestTheCooperativeSubscriptionCarriesTheFallbacksUserData(t *testing.T) {
	b, err := NewCooperative(Config{URL: "http://127.0.0.1:8321"})
	if err != nil {
		t.Fatal(err)
	}
	if b.ProtocolName() != "lagassign-cooperative" || !b.IsCooperative() {
		t.Fatalf("%s, cooperative %v", b.ProtocolName(), b.IsCooperative())
	}
	var meta kmsg.ConsumerMemberMetadata
	if err := meta.ReadFrom(b.JoinGroupMetadata([]string{"orders"}, map[string][]int32{"orders": {1}}, 7)); err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"owned":{"orders":[1]},"generation":7,"instance_id":null,"rack":null,"cooperative_sticky":"AAAABw=="}`
	if string(meta.UserData) != want || meta.Generation != 7 || len(meta.OwnedPartitions) != 1 {
		t.Fatalf("user data %s, generation %d, owned %v", meta.UserData, meta.Generation, meta.OwnedPartitions)
	}
}
