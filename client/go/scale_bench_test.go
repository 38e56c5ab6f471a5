package lagassign

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The leader's own work at Kafka's largest group, as bench/shim_scale.py
// measures the other shims: 2,000 members of one subscription to 500 topics of
// 2,000 partitions (1,000,000 partitions), each member given partition i of
// every topic. go test -run XXX -bench Scale -benchtime 5x
const (
	scaleMembers = 2000
	scaleTopics  = 500
)

// scaleGroup is the members as the leader receives them, each owning (in its
// user data) the partitions it is given, and the topics' partition counts.
func scaleGroup() ([]kmsg.JoinGroupResponseMember, []kmsg.ConsumerMemberMetadata, map[string]int32) {
	topics := make([]string, scaleTopics)
	counts := map[string]int32{}
	for t := range topics {
		topics[t] = fmt.Sprintf("topic-%03d", t)
		counts[topics[t]] = scaleMembers
	}
	joined := make([]kmsg.JoinGroupResponseMember, scaleMembers)
	metas := make([]kmsg.ConsumerMemberMetadata, scaleMembers)
	generation := int32(7)
	for m := range joined {
		joined[m].MemberID = fmt.Sprintf("member-%04d", m)
		owned := make(map[string][]int32, scaleTopics)
		for _, topic := range topics {
			owned[topic] = []int32{int32(m)}
		}
		metas[m] = kmsg.NewConsumerMemberMetadata()
		metas[m].Topics = topics
		metas[m].UserData = SubscriptionUserData{Owned: owned, Generation: &generation}.encode()
	}
	return joined, metas, counts
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// timed runs op b.N times and reports its CPU time per op beside the wall
// time, which a loaded machine inflates far more.
func timed(b *testing.B, op func()) {
	b.Helper()
	b.ResetTimer()
	started := cpuTime()
	for i := 0; i < b.N; i++ {
		op()
	}
	b.ReportMetric(float64((cpuTime()-started).Milliseconds())/float64(b.N), "cpu-ms/op")
}

func scaleView(b *testing.B) *groupView {
	b.Helper()
	joined, metas, counts := scaleGroup()
	view, err := newGroupView("scale", joined, metas, counts, false)
	if err != nil {
		b.Fatal(err)
	}
	return view
}

// The members' subscriptions and user data read into the leader's view.
func BenchmarkScaleView(b *testing.B) {
	joined, metas, counts := scaleGroup()
	timed(b, func() {
		if _, err := newGroupView("scale", joined, metas, counts, false); err != nil {
			b.Fatal(err)
		}
	})
}

// scaleAnswer is the sidecar's packed answer giving member m partition m of every topic.
func scaleAnswer() []byte {
	var body bytes.Buffer
	body.WriteString(`{"group_id": "scale", "strategy": "balanced", "topics": [`)
	for t := 0; t < scaleTopics; t++ {
		if t > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `"topic-%03d"`, t)
	}
	body.WriteString(`], "assignment": {`)
	indices := make([]byte, 4*scaleTopics)
	for t := 0; t < scaleTopics; t++ {
		binary.LittleEndian.PutUint32(indices[4*t:], uint32(t))
	}
	topicIndices := base64.StdEncoding.EncodeToString(indices)
	partitions := make([]byte, 4*scaleTopics)
	for m := 0; m < scaleMembers; m++ {
		for t := 0; t < scaleTopics; t++ {
			binary.LittleEndian.PutUint32(partitions[4*t:], uint32(m))
		}
		if m > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `"member-%04d": {"topic_indices": "%s", "partitions": "%s"}`, m, topicIndices,
			base64.StdEncoding.EncodeToString(partitions))
	}
	body.WriteString(`}, "revoked": {}, "lag": {"source": "request", "complete": true, "unknown_partitions": 0}}`)
	return body.Bytes()
}

func BenchmarkScaleRequest(b *testing.B) {
	view := scaleView(b)
	timed(b, func() { view.requestBody("", "earliest") })
}

func BenchmarkScaleReadPackedAnswer(b *testing.B) {
	view := scaleView(b)
	body := scaleAnswer()
	timed(b, func() {
		if _, err := readAnswer(body, view); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkScaleDigest(b *testing.B) {
	view := scaleView(b)
	answer, err := readAnswer(scaleAnswer(), view)
	if err != nil {
		b.Fatal(err)
	}
	timed(b, func() { assignmentDigest(answer.assignment) })
}
