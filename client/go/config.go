package lagassign

import (
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"time"
)

// DefaultTimeout is the hard total deadline of the sidecar call, the other shims' default.
const DefaultTimeout = 1500 * time.Millisecond

// Strategies are the sidecar's strategies; Config.Strategy empty means its default.
var Strategies = []string{"range", "roundrobin", "lag-aware", "fair", "sticky", "balanced"}

// ResetPolicies are the reset_policy values the request may carry.
var ResetPolicies = []string{"earliest", "latest", "none"}

// Config is the balancer's configuration; only URL is required.
type Config struct {
	// URL is the sidecar's base URL, e.g. http://127.0.0.1:8321; the leader
	// sends POST <URL>/assign.
	URL string
	// Timeout is the hard total deadline of the sidecar call (DefaultTimeout
	// when zero, at most 60 s), well under the group's session timeout.
	Timeout time.Duration
	// Strategy is the sidecar's strategy, empty for its default (balanced).
	Strategy string
	// Token is the bearer token, when the sidecar requires one.
	Token string
	// InstanceID is the consumer's kgo.InstanceID (static membership), sent
	// in the subscription user data. The leader also reads every member's
	// static id from the broker's JoinGroup answer.
	InstanceID string
	// Rack is the consumer's rack (kgo.Rack), sent in the subscription user
	// data; the leader also reads the rack franz-go puts in the metadata.
	Rack string
	// ResetPolicy is sent as reset_policy: where this consumer starts on a
	// partition its group never committed to. Empty means "earliest",
	// franz-go's default (kgo.ConsumeStartOffset is the start of the log);
	// say "latest" with kgo.ConsumeStartOffset(kgo.NewOffset().AtEnd()). "-"
	// sends none, and the sidecar's own setting applies.
	ResetPolicy string
	// Logger receives the decision of every rebalance this consumer leads
	// (INFO for the sidecar's answer, one WARNING for a fallback); slog.Default() when nil.
	Logger *slog.Logger
}

// resolved is the checked configuration.
type resolved struct {
	url         *url.URL
	timeout     time.Duration
	strategy    string
	token       string
	instanceID  *string
	rack        *string
	resetPolicy string
	logger      *slog.Logger
}

func (c Config) resolve() (resolved, error) {
	out := resolved{timeout: c.Timeout, strategy: c.Strategy, token: c.Token, logger: c.Logger,
		resetPolicy: c.ResetPolicy}
	parsed, err := checkURL(c.URL)
	if err != nil {
		return out, err
	}
	out.url = parsed
	if out.timeout == 0 {
		out.timeout = DefaultTimeout
	}
	if out.timeout < time.Millisecond || out.timeout > 60*time.Second {
		return out, fmt.Errorf("lagassign: Timeout %v is not within 1 ms and 60 s", c.Timeout)
	}
	if c.Strategy != "" && !slices.Contains(Strategies, c.Strategy) {
		return out, fmt.Errorf("lagassign: Strategy %q is not one of %v", c.Strategy, Strategies)
	}
	switch {
	case c.ResetPolicy == "":
		out.resetPolicy = "earliest"
	case c.ResetPolicy == "-":
		out.resetPolicy = ""
	case !slices.Contains(ResetPolicies, c.ResetPolicy):
		return out, fmt.Errorf("lagassign: ResetPolicy %q is not one of %v (or \"-\")", c.ResetPolicy, ResetPolicies)
	}
	if c.InstanceID != "" {
		out.instanceID = &c.InstanceID
	}
	if c.Rack != "" {
		out.rack = &c.Rack
	}
	if out.logger == nil {
		out.logger = slog.Default()
	}
	return out, nil
}
