// Package lagassignprom exports a lagassign Balancer's counters to Prometheus
// (client_golang). It is a package of its own so that the shim itself
// depends on nothing but franz-go.
//
//	prometheus.MustRegister(lagassignprom.NewCollector(balancer, "orders-1"))
//
// gives lagassign_client_decisions_total{client_id, outcome} for every outcome
// (sidecar, lag_blind, lag_partial and each fallback reason),
// lagassign_client_answers_total and lagassign_client_fallbacks_total. Only
// the leader of a rebalance counts: sum over the group's consumers.
package lagassignprom

import (
	lagassign "github.com/lagassign/lagassign/client/go"
	"github.com/prometheus/client_golang/prometheus"
)

// Collector reads a Balancer's counters at scrape time.
type Collector struct {
	balancer  *lagassign.Balancer
	decisions *prometheus.Desc
	answers   *prometheus.Desc
	fallbacks *prometheus.Desc
	clientID  string
}

// NewCollector collects balancer's counters, labelled with the consumer's client id.
func NewCollector(balancer *lagassign.Balancer, clientID string) *Collector {
	return &Collector{
		balancer: balancer,
		clientID: clientID,
		decisions: prometheus.NewDesc("lagassign_client_decisions_total",
			"Rebalances this consumer led, by outcome: sidecar, lag_blind, lag_partial or the fallback's reason.",
			[]string{"client_id", "outcome"}, nil),
		answers: prometheus.NewDesc("lagassign_client_answers_total",
			"Rebalances this consumer led on the sidecar's answer (lag-blind ones included).",
			[]string{"client_id"}, nil),
		fallbacks: prometheus.NewDesc("lagassign_client_fallbacks_total",
			"Rebalances this consumer led on franz-go's range balancer.",
			[]string{"client_id"}, nil),
	}
}

// Describe sends the three metrics' descriptions.
func (c *Collector) Describe(out chan<- *prometheus.Desc) {
	out <- c.decisions
	out <- c.answers
	out <- c.fallbacks
}

// Collect sends the counters as they are now.
func (c *Collector) Collect(out chan<- prometheus.Metric) {
	counts := c.balancer.Decisions()
	var answers, fallbacks float64
	for _, outcome := range lagassign.Outcomes {
		out <- prometheus.MustNewConstMetric(c.decisions, prometheus.CounterValue, float64(counts[outcome]),
			c.clientID, outcome)
	}
	answers = float64(counts[lagassign.OutcomeSidecar] + counts[lagassign.OutcomeLagBlind] +
		counts[lagassign.OutcomeLagPartial])
	for _, reason := range lagassign.FallbackReasons {
		fallbacks += float64(counts[reason])
	}
	out <- prometheus.MustNewConstMetric(c.answers, prometheus.CounterValue, answers, c.clientID)
	out <- prometheus.MustNewConstMetric(c.fallbacks, prometheus.CounterValue, fallbacks, c.clientID)
}
