// Package lagassign is the consumer-side shim of lagassign for franz-go
// (github.com/twmb/franz-go): a kgo.GroupBalancer whose group leader asks the
// lagassign sidecar for a lag-balanced assignment during the rebalance.
//
//	balancer := lagassign.New(lagassign.Config{URL: "http://127.0.0.1:8321"})
//	client, err := kgo.NewClient(
//		kgo.SeedBrokers("127.0.0.1:9092"),
//		kgo.ConsumerGroup("orders"),
//		kgo.ConsumeTopics("orders"),
//		kgo.Balancers(balancer),
//	)
//
// The leader sends POST /assign in the compact wire form (each distinct
// subscription once, the answer asked for in the packed form) with a hard
// total deadline, checks the answer against its own metadata (every member
// present, every partition of every subscribed topic exactly once, only to
// members subscribed to its topic, nothing unknown) and uses it. On a
// timeout, a connection error, a non-200, a malformed or an invalid answer it
// uses franz-go's own range balancer instead, logs one WARNING with the
// reason and counts it; it never fails the rebalance.
//
// The protocol name is "lagassign", the same as the Python and Java shims',
// and the subscription and assignment user data are the same JSON, so Go,
// Java and Python consumers share a group. That balancer is eager, as its
// fallback (range) is. NewCooperative's balancer is cooperative (protocol
// "lagassign-cooperative", the Java CooperativeLagAssignor's): it falls back
// to franz-go's cooperative-sticky balancer.
package lagassign
