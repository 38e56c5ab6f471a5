package grouptest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// skew is the records per partition of each topic: two hot partitions first,
// the rest light. Range gives the first member partitions 0 and 1 of every topic.
var skew = []int{400, 300, 20, 20, 20, 20}

// partition is one topic-partition.
type partition struct {
	topic string
	id    int32
}

func (p partition) String() string { return fmt.Sprintf("%s-%d", p.topic, p.id) }

var sequence atomic.Int64

// name is a topic or group name unique in the run, in the groups the sidecar tracks.
func name(kind string) string {
	return fmt.Sprintf("golang.%s.%d.%d", kind, time.Now().UnixNano()%1_000_000, sequence.Add(1))
}

// manualClient is a client writing each record to the partition it names,
// and a context of 60 s; both end with the test.
func manualClient(t *testing.T) (*kgo.Client, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	client, err := kgo.NewClient(kgo.SeedBrokers(broker.bootstrap), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client, ctx
}

// totalOf is the sum of every partition's lag.
func totalOf(lags map[partition]int64) int64 {
	total := int64(0)
	for _, lag := range lags {
		total += lag
	}
	return total
}

// backlog creates topics of len(counts) partitions, writes counts[p] records
// to partition p of each, and commits offset 0 for group when group is not
// empty; it returns each partition's record count.
func backlog(t *testing.T, group string, topics []string, counts []int) map[partition]int64 {
	t.Helper()
	client, ctx := manualClient(t)
	admin := kadm.NewClient(client)
	created, err := admin.CreateTopics(ctx, int32(len(counts)), 1, nil, topics...)
	if err == nil {
		err = created.Error()
	}
	if err != nil {
		t.Fatalf("create topics %v: %v", topics, err)
	}
	lags := map[partition]int64{}
	var records []*kgo.Record
	for _, topic := range topics {
		for p, count := range counts {
			lags[partition{topic, int32(p)}] = int64(count)
			for i := 0; i < count; i++ {
				records = append(records, &kgo.Record{Topic: topic, Partition: int32(p), Value: []byte("x")})
			}
		}
	}
	if err := client.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	if group != "" {
		offsets := kadm.Offsets{}
		for p := range lags {
			offsets.Add(kadm.Offset{Topic: p.topic, Partition: p.id, At: 0, LeaderEpoch: -1})
		}
		committed, err := admin.CommitOffsets(ctx, group, offsets)
		if err == nil {
			err = committed.Error()
		}
		if err != nil {
			t.Fatalf("commit 0 for %s: %v", group, err)
		}
	}
	return lags
}

// sidecarSees waits until the sidecar's cached view of group holds total lag.
func sidecarSees(t *testing.T, group string, total int64) {
	t.Helper()
	err := eventually(60*time.Second, fmt.Sprintf("the sidecar sees lag %d for %s", total, group),
		func() (bool, string) {
			report, err := sidecar.group(group)
			if err != nil || report == nil {
				return false, fmt.Sprint(err)
			}
			return report.totalLag() == total, fmt.Sprint(report.totalLag())
		})
	if err != nil {
		t.Fatal(err)
	}
}
