package lagassign

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// view is a group of c-1 (orders, payments) and c-2 (orders) over orders (3)
// and payments (2).
func view(t *testing.T) *groupView {
	t.Helper()
	joined := []kmsg.JoinGroupResponseMember{{MemberID: "c-2"}, {MemberID: "c-1"}}
	metas := []kmsg.ConsumerMemberMetadata{{Topics: []string{"orders"}}, {Topics: []string{"payments", "orders"}}}
	v, err := newGroupView("g", joined, metas, map[string]int32{"orders": 3, "payments": 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func packed(values ...uint32) string {
	raw := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(raw[4*i:], v)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// member writes one packed member from (topic index, partition) pairs.
func packedMember(pairs ...[2]uint32) string {
	var topics, partitions []uint32
	for _, p := range pairs {
		topics = append(topics, p[0])
		partitions = append(partitions, p[1])
	}
	return fmt.Sprintf(`{"topic_indices": %q, "partitions": %q}`, packed(topics...), packed(partitions...))
}

func answerBody(c1, c2 string) string {
	return `{"topics": ["orders", "payments"], "strategy": "balanced", "assignment": {"c-1": ` + c1 + `, "c-2": ` + c2 +
		`}, "revoked": {}, "lag": {"source": "request", "complete": true, "unknown_partitions": 0},` +
		` "stats": {"max_lag": 10, "mean_lag": 7.5}}`
}

func TestAPackedAnswerIsReadAndChecked(t *testing.T) {
	got, err := readAnswer([]byte(answerBody(packedMember([2]uint32{0, 0}, [2]uint32{1, 0}, [2]uint32{1, 1}),
		packedMember([2]uint32{0, 1}, [2]uint32{0, 2}))), view(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string][]int32{
		"c-1": {"orders": {0}, "payments": {0, 1}},
		"c-2": {"orders": {1, 2}},
	}
	if !reflect.DeepEqual(got.assignment.asMap(), want) || got.outcome() != OutcomeSidecar || *got.maxLag != 10 {
		t.Fatalf("got %+v", got)
	}
}

func TestTheAnswersLagSaysWhetherItWasBlind(t *testing.T) {
	c1 := packedMember([2]uint32{0, 0}, [2]uint32{1, 0}, [2]uint32{1, 1})
	c2 := packedMember([2]uint32{0, 1}, [2]uint32{0, 2})
	lags := map[string]string{
		`{"source": "kafka", "complete": false, "unknown_partitions": 2}`:  OutcomeLagPartial,
		`{"source": "none", "complete": false, "unknown_partitions": 5}`:   OutcomeLagBlind,
		`{"source": "request", "complete": true, "unknown_partitions": 0}`: OutcomeSidecar,
	}
	for lag, outcome := range lags {
		body := strings.Replace(answerBody(c1, c2), `{"source": "request", "complete": true, "unknown_partitions": 0}`, lag, 1)
		got, err := readAnswer([]byte(body), view(t))
		if err != nil {
			t.Fatal(err)
		}
		if got.outcome() != outcome {
			t.Fatalf("%s: outcome %s, want %s", lag, got.outcome(), outcome)
		}
	}
}

func TestTheIndexedAndTopicsFormsAreRefused(t *testing.T) {
	for _, body := range []string{
		`{"topics": ["orders", "payments"], "assignment": {"c-1": [[0, [0]], [1, [0, 1]]], "c-2": [[0, [1, 2]]]}}`,
		`{"assignment": {"c-1": {"orders": [0], "payments": [0, 1]}, "c-2": {"orders": [1, 2]}}}`,
	} {
		_, err := readAnswer([]byte(body), view(t))
		var why *fallbackError
		if !errors.As(err, &why) || why.reason != ReasonMalformed {
			t.Fatalf("%s: got %v, want malformed", body, err)
		}
	}
}

// Every rule of the leader's check, each broken once, with the reason and the message.
func TestEveryBrokenRuleFallsBackWithItsReason(t *testing.T) {
	good2 := packedMember([2]uint32{0, 1}, [2]uint32{0, 2})
	cases := []struct {
		name, body, reason, message string
	}{
		{"not JSON", "<html>", ReasonMalformed, "not JSON"},
		{"no assignment", `{"topics": []}`, ReasonMalformed, "no 'assignment'"},
		{"not base64", answerBody(`{"topic_indices": "@@@@", "partitions": "AAAAAA=="}`, good2), ReasonMalformed, "not base64"},
		{"lengths differ", answerBody(`{"topic_indices": "`+packed(0, 1)+`", "partitions": "`+packed(0)+`"}`, good2),
			ReasonMalformed, "2 topic indices but 1 partitions"},
		{"out of order", answerBody(packedMember([2]uint32{1, 0}, [2]uint32{0, 0}, [2]uint32{1, 1}), good2), ReasonMalformed,
			"strictly ascending"},
		{"index past topics", answerBody(packedMember([2]uint32{0, 0}, [2]uint32{1, 0}, [2]uint32{7, 1}), good2), ReasonMalformed,
			"not in 'topics'"},
		{"member missing", `{"topics": ["orders", "payments"], "assignment": {"c-1": ` +
			packedMember([2]uint32{0, 0}, [2]uint32{0, 1}, [2]uint32{0, 2}, [2]uint32{1, 0}, [2]uint32{1, 1}) + `}}`,
			ReasonInvalid, "member 'c-2' is missing"},
		{"not subscribed", answerBody(packedMember([2]uint32{0, 0}, [2]uint32{0, 1}, [2]uint32{0, 2}),
			packedMember([2]uint32{1, 0}, [2]uint32{1, 1})), ReasonInvalid, "'payments' to 'c-2', not subscribed"},
		{"given twice", answerBody(packedMember([2]uint32{0, 0}, [2]uint32{0, 1}, [2]uint32{1, 0}, [2]uint32{1, 1}), good2),
			ReasonInvalid, "orders-1 to both 'c-1' and 'c-2'"},
		{"left out", answerBody(packedMember([2]uint32{0, 0}, [2]uint32{1, 0}), good2), ReasonInvalid,
			"leaves payments-1 unassigned"},
		{"unknown partition", answerBody(packedMember([2]uint32{0, 0}, [2]uint32{1, 0}, [2]uint32{1, 1}, [2]uint32{1, 9}), good2),
			ReasonInvalid, "unknown partition payments-9"},
		{"withheld", strings.Replace(answerBody(packedMember([2]uint32{0, 0}, [2]uint32{1, 0}, [2]uint32{1, 1}), good2),
			`"revoked": {}`, `"revoked": {"c-1": `+packedMember([2]uint32{0, 0})+`}`, 1), ReasonInvalid, "withholds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAnswer([]byte(c.body), view(t))
			var why *fallbackError
			if !errors.As(err, &why) || why.reason != c.reason || !strings.Contains(why.message, c.message) {
				t.Fatalf("got %v, want %s containing %q", err, c.reason, c.message)
			}
		})
	}
}

// The compact request: one subscription per distinct topic list, members by id.
func TestTheRequestIsTheCompactFormAskingForPacked(t *testing.T) {
	got := string(view(t).requestBody("", "earliest"))
	want := `{"group_id":"g","subscriptions":[["orders","payments"],["orders"]],"members":[` +
		`{"member_id":"c-1","group_instance_id":null,"subscription":0,"owned":{},"generation":null,"rack":null},` +
		`{"member_id":"c-2","group_instance_id":null,"subscription":1,"owned":{},"generation":null,"rack":null}],` +
		`"partitions":{"orders":3,"payments":2},"protocol":"eager","answer_form":"packed","reset_policy":"earliest"}`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A static member's id comes from the broker's JoinGroup answer, else from its user data.
func TestStaticMembersAreSentWithTheirInstanceIDs(t *testing.T) {
	fromBroker := "web-1"
	userData := SubscriptionUserData{InstanceID: ptr("web-2")}.encode()
	joined := []kmsg.JoinGroupResponseMember{{MemberID: "c-1", InstanceID: &fromBroker}, {MemberID: "c-2"}}
	metas := []kmsg.ConsumerMemberMetadata{{Topics: []string{"orders"}}, {Topics: []string{"orders"}, UserData: userData}}
	v, err := newGroupView("g", joined, metas, map[string]int32{"orders": 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	body := string(v.requestBody("", ""))
	for _, want := range []string{`"member_id":"c-1","group_instance_id":"web-1"`,
		`"member_id":"c-2","group_instance_id":"web-2"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("%s lacks %s", body, want)
		}
	}
}

// No subscribed topic with metadata: the leader does not ask, it falls back (metadata).
func TestALeaderWithoutMetadataFallsBack(t *testing.T) {
	joined := []kmsg.JoinGroupResponseMember{{MemberID: "c-1"}}
	metas := []kmsg.ConsumerMemberMetadata{{Topics: []string{"orders"}}}
	_, err := newGroupView("g", joined, metas, map[string]int32{}, false)
	var why *fallbackError
	if !errors.As(err, &why) || why.reason != ReasonMetadata {
		t.Fatalf("got %v", err)
	}
}

func ptr(s string) *string { return &s }
