package lagassign

import (
	"sync"
	"time"
)

// Decision is how one rebalance this consumer led was assigned.
type Decision struct {
	// Outcome is sidecar, lag_blind, lag_partial, or the fallback's reason.
	Outcome string
	// Note is what the leader told every member (AssignmentNote).
	Note AssignmentNote
	// Message says what went wrong, for a fallback.
	Message string
	// Elapsed is from the start of the balance to the decision.
	Elapsed time.Duration
}

// Fallback says whether franz-go's range balancer made the assignment.
func (d Decision) Fallback() bool { return d.Note.By == ByRange }

// decisionCounters counts the rebalances this consumer led, by outcome.
type decisionCounters struct {
	mu     sync.Mutex
	counts map[string]int64
	last   *Decision
}

func (c *decisionCounters) count(d Decision) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int64{}
	}
	c.counts[d.Outcome]++
	c.last = &d
}

// snapshot is every outcome's count (zeros included) and the last decision.
func (c *decisionCounters) snapshot() (map[string]int64, *Decision) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(Outcomes))
	for _, outcome := range Outcomes {
		out[outcome] = c.counts[outcome]
	}
	return out, c.last
}
