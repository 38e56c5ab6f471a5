package grouptest

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// enforcing is the advisor's log line when it forces a rebalance.
const enforcing = "the sidecar advises a rebalance, enforcing it"

// A stable Go group of two with the Advisor in both poll loops; a backlog
// lands on one member's partitions and stays (nobody commits): the sidecar
// advises a rebalance (hold 1 s, cooldown 5 s, gain 30 %), the generation's
// leader alone forces exactly one, and the worst member's lag falls by at
// least the share.
func TestTheAdvisorRebalancesWhenTheSidecarAdvises(t *testing.T) {
	group := name("advice")
	topic := name("topic")
	lags := backlog(t, group, []string{topic}, []int{0, 0, 0, 0})
	members := []*member{
		startMember(t, "go-advised-0", group, []string{topic}, memberOptions{advise: true}),
		startMember(t, "go-advised-1", group, []string{topic}, memberOptions{advise: true}),
	}
	before := settled(t, members, lags, joinTimeout)
	_, generation := members[0].client.GroupMetadata()

	hot := before[members[0].name]
	if len(hot) != 2 {
		t.Fatalf("%s holds %v, not two of the four partitions", members[0].name, hot)
	}
	const records = 1000
	produce(t, hot, records)
	for _, p := range hot {
		lags[p] = records
	}
	worstBefore := int64(len(hot) * records)

	var after map[string][]partition
	err := eventually(joinTimeout, "a rebalance that spreads the backlog", func() (bool, string) {
		_, now := members[0].client.GroupMetadata()
		if now == generation {
			return false, fmt.Sprintf("generation %d", now)
		}
		after = map[string][]partition{}
		for _, m := range members {
			after[m.name] = m.holding()
		}
		return float64(worstOf(after, lags)) <= 0.7*float64(worstBefore), fmt.Sprintf("generation %d, held %v", now, after)
	})
	if err != nil {
		t.Fatal(err)
	}
	forced := 0
	for _, m := range members {
		forced += len(m.log.containing(slog.LevelInfo, enforcing))
		if len(m.log.at(slog.LevelWarn)) != 0 {
			t.Fatalf("%s warned: %v", m.name, m.log.at(slog.LevelWarn))
		}
	}
	if forced != 1 {
		t.Fatalf("%d members forced a rebalance, want exactly one", forced)
	}
	t.Logf("held before %v, after %v", before, after)
}

// produce writes count records to each of partitions.
func produce(t *testing.T, partitions []partition, count int) {
	t.Helper()
	client, ctx := manualClient(t)
	var batch []*kgo.Record
	for _, p := range partitions {
		for i := 0; i < count; i++ {
			batch = append(batch, &kgo.Record{Topic: p.topic, Partition: p.id, Value: []byte("x")})
		}
	}
	if err := client.ProduceSync(ctx, batch...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}
