package lagassign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// DefaultAdviceEvery is how often, at most, the advisor asks the sidecar.
const DefaultAdviceEvery = 5 * time.Second

// adviceTimeout bounds one advice request.
const adviceTimeout = 2 * time.Second

// groupMember is what the advisor needs of the consumer: kgo.Client has both.
type groupMember interface {
	GroupMetadata() (memberID string, generation int32)
	ForceRebalance()
}

// Advisor acts on the sidecar's rebalance advice (docs/advice.md) from the
// application's poll loop, in one line:
//
//	advisor, err := lagassign.NewAdvisor(client, balancer, lagassign.AdvisorConfig{})
//	for {
//		fetches := client.PollFetches(ctx)
//		advisor.MaybeRebalance()
//		// process fetches
//	}
//
// MaybeRebalance never blocks: on the member that led the group's current
// generation (its Balancer balanced it) it starts at most one background
// GET /groups/{group}/advice every Every and, when the last answer for this
// generation says "advised" about the assignment this member made
// (assignment_digest), calls client.ForceRebalance() once, with the
// sidecar's reason in the log. Every other member does nothing and sends
// nothing. When the sidecar cannot be read it does nothing and logs one
// WARNING until it answers again. The sidecar's hold time and cooldown keep a
// group from rebalancing in a loop; the advisor adds that it forces at most
// one rebalance per generation. The rebalance is eager with New's balancer,
// cooperative with NewCooperative's.
type Advisor struct {
	member    groupMember
	balancer  *Balancer
	group     string
	adviceURL string
	every     time.Duration
	logger    *slog.Logger
	http      *http.Client

	mu       sync.Mutex
	latest   *advice
	inFlight bool
	asked    bool
	next     time.Time
	enforced int32
	warned   bool
	requests int64
	warnings int64
}

// advice is one answer of the sidecar, for the generation the member was in when it asked.
type advice struct {
	advised    bool
	reason     string
	generation int32
	digest     string
}

// AdvisorConfig is the advisor's configuration; every field may be left zero.
type AdvisorConfig struct {
	// Group is the consumer group; when empty, the client's kgo.ConsumerGroup.
	Group string
	// Every is the least time between two requests (DefaultAdviceEvery when zero).
	Every time.Duration
	// Logger; slog.Default() when nil.
	Logger *slog.Logger
}

// NewAdvisor returns the advisor of a consumer whose kgo.Balancers list balancer.
// The sidecar's URL and token are the balancer's.
func NewAdvisor(client *kgo.Client, balancer *Balancer, cfg AdvisorConfig) (*Advisor, error) {
	if cfg.Group == "" {
		if group, ok := client.OptValue(kgo.ConsumerGroup).(string); ok {
			cfg.Group = group
		}
	}
	return newAdvisor(client, balancer, cfg)
}

func newAdvisor(member groupMember, balancer *Balancer, cfg AdvisorConfig) (*Advisor, error) {
	if cfg.Group == "" {
		return nil, fmt.Errorf("lagassign: the advisor needs the consumer group (kgo.ConsumerGroup)")
	}
	if cfg.Every == 0 {
		cfg.Every = DefaultAdviceEvery
	}
	if cfg.Logger == nil {
		cfg.Logger = balancer.cfg.logger
	}
	base := strings.TrimSuffix(balancer.cfg.url.String(), "/")
	return &Advisor{
		member: member, balancer: balancer, group: cfg.Group, every: cfg.Every, logger: cfg.Logger,
		adviceURL: base + "/groups/" + url.PathEscape(cfg.Group) + "/advice",
		http:      &http.Client{Timeout: adviceTimeout, Transport: &http.Transport{IdleConnTimeout: time.Second}},
		enforced:  -1,
	}, nil
}

// MaybeRebalance forces a rebalance when the sidecar advises one about the
// assignment this member made as the current generation's leader; otherwise
// at most starts a check in the background. It reports whether it forced one.
func (a *Advisor) MaybeRebalance() bool {
	memberID, generation := a.member.GroupMetadata()
	if generation < 0 {
		return false
	}
	made, led := a.balancer.ledDigest(memberID, generation)
	if !led {
		return false
	}
	a.mu.Lock()
	if generation == a.enforced {
		a.mu.Unlock()
		return false
	}
	seen := a.latest
	if seen != nil && seen.advised && seen.generation == generation && seen.digest == made {
		a.enforced = generation
		a.latest = nil
		a.mu.Unlock()
		a.logger.Info(fmt.Sprintf("lagassign: group %s generation %d: the sidecar advises a rebalance, enforcing it: %s",
			a.group, generation, seen.reason), "group", a.group)
		a.member.ForceRebalance()
		return true
	}
	now := time.Now()
	if !a.inFlight && (!a.asked || !now.Before(a.next)) {
		a.inFlight = true
		a.asked = true
		a.next = now.Add(a.every)
		a.requests++
		go a.check(generation)
	}
	a.mu.Unlock()
	return false
}

// check reads the advice once and keeps it for generation.
func (a *Advisor) check(generation int32) {
	seen, problem := a.read()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inFlight = false
	if problem != "" {
		a.latest = nil
		if !a.warned {
			a.warned = true
			a.warnings++
			a.logger.Warn(fmt.Sprintf("lagassign: group %s: cannot read the rebalance advice at %s (%s); "+
				"no rebalance is forced until it answers", a.group, a.adviceURL, problem), "group", a.group)
		}
		return
	}
	if a.warned {
		a.warned = false
		a.logger.Info(fmt.Sprintf("lagassign: group %s: the sidecar answers the advice again", a.group), "group", a.group)
	}
	seen.generation = generation
	a.latest = seen
}

// read is one GET of the advice, or what went wrong.
func (a *Advisor) read() (*advice, string) {
	ctx, cancel := context.WithTimeout(context.Background(), adviceTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.adviceURL, nil)
	if err != nil {
		return nil, err.Error()
	}
	req.Header.Set("Accept", "application/json")
	if a.balancer.cfg.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.balancer.cfg.token)
	}
	response, err := a.http.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer response.Body.Close()
	body, err := io.ReadAll(io.LimitReader(response.Body, 1<<20))
	if err != nil {
		return nil, err.Error()
	}
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Sprintf("status %d", response.StatusCode)
	}
	var fields struct {
		Advised *bool           `json:"advised"`
		Reason  json.RawMessage `json:"reason"`
		Digest  json.RawMessage `json:"assignment_digest"`
	}
	if json.Unmarshal(body, &fields) != nil {
		return nil, "malformed JSON"
	}
	if fields.Advised == nil {
		return nil, `an answer without "advised"`
	}
	seen := &advice{advised: *fields.Advised}
	if reason := text(fields.Reason); reason != nil {
		seen.reason = *reason
	}
	if digest := text(fields.Digest); digest != nil {
		seen.digest = *digest
	}
	return seen, ""
}

// Requests is how many advice requests the advisor has sent.
func (a *Advisor) Requests() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests
}

// Warnings is how many WARNING lines it logged (one per stretch the sidecar could not be read).
func (a *Advisor) Warnings() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.warnings
}
