package lagassign

import (
	"encoding/json"
	"fmt"
)

// pairs is one member's partitions as the answer gives them: element i is
// partition partitions[i] of the topic at index topics[i] of the answer's
// topics.
type pairs struct {
	topics     []int32
	partitions []int32
}

// answer is a checked answer: every member of the view, its partitions by
// topic (sorted), and what the sidecar says it knew of the lag.
type answer struct {
	assignment        groupAssignment
	strategy          string
	lagSource         string // empty when the answer does not say
	lagComplete       bool
	unknownPartitions int
	maxLag            *int64
	meanLag           *float64
}

// outcome is lag_blind or lag_partial for an answer made without (all) lag,
// else sidecar.
func (a *answer) outcome() string {
	if a.lagSource == "" || a.lagSource == "none" {
		return OutcomeLagBlind
	}
	if !a.lagComplete || a.unknownPartitions > 0 {
		return OutcomeLagPartial
	}
	return OutcomeSidecar
}

// blindness says in words why an answer was not fully lag-aware.
func (a *answer) blindness() string {
	if a.lagSource == "" {
		return "the answer does not say which lag it used"
	}
	if a.lagSource == "none" {
		return "the sidecar knew no lag for this group (lag source none): count balance only"
	}
	return fmt.Sprintf("the lag of %d partition(s) was assumed, not known (lag source %s, complete %t)",
		a.unknownPartitions, a.lagSource, a.lagComplete)
}

type answerJSON struct {
	Topics     json.RawMessage            `json:"topics"`
	Assignment map[string]json.RawMessage `json:"assignment"`
	Revoked    map[string]json.RawMessage `json:"revoked"`
	Strategy   json.RawMessage            `json:"strategy"`
	Lag        struct {
		Source            json.RawMessage `json:"source"`
		Complete          json.RawMessage `json:"complete"`
		UnknownPartitions json.RawMessage `json:"unknown_partitions"`
	} `json:"lag"`
	Stats struct {
		MaxLag  json.RawMessage `json:"max_lag"`
		MeanLag json.RawMessage `json:"mean_lag"`
	} `json:"stats"`
}

// readAnswer reads the sidecar's packed answer and checks it against the
// view: every member asked about present, every partition of every subscribed
// topic given exactly once, only to a member subscribed to its topic, nothing
// unknown; in an eager rebalance nothing withheld in revoked, in a cooperative
// one the rules of cooperativeOwners.
func readAnswer(body []byte, view *groupView) (*answer, error) {
	var raw answerJSON
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, malformed("the answer is not JSON of the answer's shape: %v", err)
	}
	if raw.Assignment == nil {
		return nil, malformed("the answer has no 'assignment' object")
	}
	var names []string
	if json.Unmarshal(raw.Topics, &names) != nil || names == nil {
		return nil, malformed("'topics' is not a list of topic names")
	}
	if len(setOf(names)) != len(names) {
		return nil, malformed("'topics' names a topic twice")
	}
	given, err := packedMembers(raw.Assignment, "assignment")
	if err != nil {
		return nil, err
	}
	withheld, err := packedMembers(raw.Revoked, "revoked")
	if err != nil {
		return nil, err
	}
	if !view.cooperative {
		for _, member := range sortedKeys(withheld) {
			if len(withheld[member].partitions) > 0 {
				return nil, invalid("the answer withholds partitions in 'revoked' in an eager rebalance")
			}
		}
		withheld = nil
	}
	assignment, err := check(view, names, given, withheld)
	if err != nil {
		return nil, err
	}
	out := &answer{assignment: assignment}
	if s := text(raw.Strategy); s != nil {
		out.strategy = *s
	}
	if s := text(raw.Lag.Source); s != nil {
		out.lagSource = *s
	}
	_ = json.Unmarshal(raw.Lag.Complete, &out.lagComplete)
	_ = json.Unmarshal(raw.Lag.UnknownPartitions, &out.unknownPartitions)
	var maxLag int64
	if json.Unmarshal(raw.Stats.MaxLag, &maxLag) == nil && string(raw.Stats.MaxLag) != "null" {
		out.maxLag = &maxLag
	}
	var meanLag float64
	if json.Unmarshal(raw.Stats.MeanLag, &meanLag) == nil && string(raw.Stats.MeanLag) != "null" {
		out.meanLag = &meanLag
	}
	return out, nil
}

// setOf is the distinct strings of list.
func setOf(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, item := range list {
		set[item] = true
	}
	return set
}
