// Command groupmember is one franz-go consumer with the lagassign balancer,
// driven by the mixed-group tests (client/go/mixedtest) beside the Java and
// Python test members:
//
//	groupmember BOOTSTRAP GROUP TOPICS SIDECAR_URL TIMEOUT_MS CLIENT_ID [cooperative]
//
// With "cooperative" it uses lagassign.NewCooperative's balancer (protocol
// lagassign-cooperative), else lagassign.New's. It reads from the earliest
// offset and never commits. It prints JSON lines
// on stdout: {"event": "assigned", "member_id", "generation", "partitions":
// [[topic, partition], ...] (the partitions added: all of them in an eager
// group, the new ones in a cooperative one), "note": {"by", "strategy", "reason"}, "answers",
// "fallbacks"} after every assignment, {"event": "revoked", "partitions"}
// when partitions are taken (all of them in an eager group), {"event": "consumed", "records": [[topic, partition,
// offset], ...]} after every poll that read records, and {"event": "closed"}
// at the end. It leaves the group and exits when stdin says "stop" or closes.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	lagassign "github.com/lagassign/lagassign/client/go"
	"github.com/twmb/franz-go/pkg/kgo"
)

var out = struct {
	sync.Mutex
	encoder *json.Encoder
}{encoder: json.NewEncoder(os.Stdout)}

func emit(line map[string]any) {
	out.Lock()
	defer out.Unlock()
	_ = out.encoder.Encode(line)
}

func main() {
	if len(os.Args) != 7 && (len(os.Args) != 8 || os.Args[7] != "cooperative") {
		fmt.Fprintln(os.Stderr, "usage: groupmember BOOTSTRAP GROUP TOPICS SIDECAR_URL TIMEOUT_MS CLIENT_ID [cooperative]")
		os.Exit(2)
	}
	newBalancer := lagassign.New
	if len(os.Args) == 8 {
		newBalancer = lagassign.NewCooperative
	}
	bootstrap, group, topics, url, clientID := os.Args[1], os.Args[2], strings.Split(os.Args[3], ","), os.Args[4], os.Args[6]
	timeoutMS, err := strconv.Atoi(os.Args[5])
	if err != nil {
		fmt.Fprintln(os.Stderr, "TIMEOUT_MS:", err)
		os.Exit(2)
	}
	balancer, err := newBalancer(lagassign.Config{URL: url, Timeout: time.Duration(timeoutMS) * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var client *kgo.Client
	assigned := func(_ context.Context, c *kgo.Client, given map[string][]int32) {
		memberID, generation := c.GroupMetadata()
		partitions := pairs(given)
		line := map[string]any{"event": "assigned", "member_id": memberID, "generation": generation,
			"partitions": partitions, "answers": balancer.Answers(), "fallbacks": nonZeroFallbacks(balancer)}
		if note, ok := balancer.AssignedBy(); ok {
			line["note"] = map[string]any{"by": note.By, "strategy": orNil(note.Strategy), "reason": orNil(note.Reason)}
		}
		emit(line)
	}
	revoked := func(_ context.Context, _ *kgo.Client, taken map[string][]int32) {
		emit(map[string]any{"event": "revoked", "partitions": pairs(taken)})
	}
	client, err = kgo.NewClient(
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID(clientID),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topics...),
		kgo.Balancers(balancer),
		kgo.DisableAutoCommit(),
		kgo.ConsumeStartOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(30*time.Second),
		kgo.HeartbeatInterval(time.Second),
		kgo.OnPartitionsAssigned(assigned),
		kgo.OnPartitionsRevoked(revoked),
		kgo.OnPartitionsLost(revoked),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// It runs at most lifetime and polls at most maxPolls times, whatever its driver does.
	const lifetime, maxPolls = 10 * time.Minute, 1_000_000
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	go func() {
		lines := bufio.NewScanner(os.Stdin)
		for lines.Scan() && strings.TrimSpace(lines.Text()) != "stop" {
		}
		cancel()
	}()
	for polls := 0; polls < maxPolls && ctx.Err() == nil; polls++ {
		polled, done := context.WithTimeout(ctx, 200*time.Millisecond)
		fetches := client.PollFetches(polled)
		done()
		records := [][]any{}
		fetches.EachRecord(func(r *kgo.Record) { records = append(records, []any{r.Topic, r.Partition, r.Offset}) })
		if len(records) > 0 {
			emit(map[string]any{"event": "consumed", "records": records})
		}
	}
	cancel()
	client.Close()
	emit(map[string]any{"event": "closed"})
}

// pairs is [[topic, partition], ...].
func pairs(partitions map[string][]int32) [][]any {
	out := [][]any{}
	for topic, ids := range partitions {
		for _, id := range ids {
			out = append(out, []any{topic, id})
		}
	}
	return out
}

func nonZeroFallbacks(balancer *lagassign.Balancer) map[string]int64 {
	out := map[string]int64{}
	for _, reason := range lagassign.FallbackReasons {
		if count := balancer.Decisions()[reason]; count > 0 {
			out[reason] = count
		}
	}
	return out
}

func orNil(text string) any {
	if text == "" {
		return nil
	}
	return text
}
