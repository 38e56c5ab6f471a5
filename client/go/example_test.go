package lagassign_test

import (
	"context"
	"log"

	lagassign "github.com/lagassign/lagassign/client/go"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The one line: the balancer listed in kgo.Balancers.
func ExampleNew() {
	balancer, err := lagassign.New(lagassign.Config{URL: "http://127.0.0.1:8321"})
	if err != nil {
		log.Fatal(err)
	}
	client, err := kgo.NewClient(
		kgo.SeedBrokers("127.0.0.1:9092"),
		kgo.ConsumerGroup("orders"),
		kgo.ConsumeTopics("orders", "payments"),
		kgo.Balancers(balancer),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
}

// The advisor in the poll loop.
func ExampleNewAdvisor() {
	balancer, err := lagassign.New(lagassign.Config{URL: "http://127.0.0.1:8321"})
	if err != nil {
		log.Fatal(err)
	}
	client, err := kgo.NewClient(kgo.ConsumerGroup("orders"), kgo.ConsumeTopics("orders"), kgo.Balancers(balancer))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	advisor, err := lagassign.NewAdvisor(client, balancer, lagassign.AdvisorConfig{})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for {
		fetches := client.PollFetches(ctx)
		advisor.MaybeRebalance()
		if fetches.IsClientClosed() {
			return
		}
		// process fetches
	}
}
