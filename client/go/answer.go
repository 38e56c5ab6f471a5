package lagassign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// pairs is one member's partitions as the answer gives them: element i is
// partition partitions[i] of the topic at index topics[i] of the answer's
// topics (or of the names read from the nested form).
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

// readAnswer reads the sidecar's answer in the packed, indexed or topics form
// and checks it against the view: every member asked about present, every
// partition of every subscribed topic given exactly once, only to a member
// subscribed to its topic, nothing unknown, nothing withheld in revoked (an
// eager rebalance).
func readAnswer(body []byte, view *groupView) (*answer, error) {
	var raw answerJSON
	decoder := json.NewDecoder(bytes.NewReader(body))
	if err := decoder.Decode(&raw); err != nil {
		return nil, malformed("the answer is not JSON of the answer's shape: %v", err)
	}
	if decoder.More() {
		return nil, malformed("the answer is not one JSON object")
	}
	if raw.Assignment == nil {
		return nil, malformed("the answer has no 'assignment' object")
	}
	var names []string
	indexedTopics := len(raw.Topics) > 0 && string(raw.Topics) != "null"
	if indexedTopics && json.Unmarshal(raw.Topics, &names) != nil {
		return nil, malformed("'topics' is not a list of topic names")
	}
	forms := &formReader{names: names, indexed: indexedTopics, nestedIndex: map[string]int32{}}
	given, err := forms.members(raw.Assignment, "assignment")
	if err != nil {
		return nil, err
	}
	withheld, err := forms.members(raw.Revoked, "revoked")
	if err != nil {
		return nil, err
	}
	if err := forms.oneForm(); err != nil {
		return nil, err
	}
	for _, member := range sortedKeys(withheld) {
		if len(withheld[member].partitions) > 0 {
			return nil, invalid("the answer withholds partitions in 'revoked' in an eager rebalance")
		}
	}
	assignment, err := check(view, forms.names, given)
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

// formReader reads members in any of the three forms and remembers which it met.
type formReader struct {
	names   []string
	indexed bool // the answer has 'topics'
	// nestedIndex gives the topics form's names an index each, in names.
	nestedIndex                       map[string]int32
	firstPacked, firstIndexed, nested string
}

func (f *formReader) members(raw map[string]json.RawMessage, key string) (map[string]pairs, error) {
	out := make(map[string]pairs, len(raw))
	for _, id := range sortedKeys(raw) {
		where := fmt.Sprintf("%s['%s']", key, id)
		value := bytes.TrimSpace(raw[id])
		var p pairs
		var err error
		switch {
		case len(value) > 0 && value[0] == '[':
			f.firstIndexed = firstOf(f.firstIndexed, where)
			p, err = readIndexed(value, where)
		case len(value) > 0 && value[0] == '{':
			if scanned, ok, err := scanPacked(value, where); ok {
				if err != nil {
					return nil, err
				}
				f.firstPacked = firstOf(f.firstPacked, where)
				out[id] = scanned
				continue
			}
			var fields map[string]json.RawMessage
			if json.Unmarshal(value, &fields) != nil {
				return nil, malformed("%s is not an object", where)
			}
			if looksPacked(fields) {
				f.firstPacked = firstOf(f.firstPacked, where)
				p, err = readPacked(fields, where)
			} else {
				f.nested = firstOf(f.nested, where)
				p, err = f.readNested(fields, where)
			}
		default:
			return nil, malformed("%s is neither a list of pairs nor an object", where)
		}
		if err != nil {
			return nil, err
		}
		out[id] = p
	}
	return out, nil
}

// oneForm: one form per answer, and 'topics' exactly when the form names topics by index.
func (f *formReader) oneForm() error {
	if f.firstPacked != "" && f.firstIndexed != "" {
		return malformed("the answer mixes the 'packed' form (%s) and the 'indexed' form (%s)",
			f.firstPacked, f.firstIndexed)
	}
	if !f.indexed {
		if f.firstPacked != "" || f.firstIndexed != "" {
			return malformed("an assignment in the indexed or packed form without 'topics'")
		}
		return nil
	}
	if f.nested != "" {
		return malformed("the answer has 'topics' but %s is in the 'topics' form", f.nested)
	}
	return nil
}

// looksPacked: a member's object with a string value, or with a packed field name.
func looksPacked(fields map[string]json.RawMessage) bool {
	for name, value := range fields {
		v := bytes.TrimSpace(value)
		if (len(v) > 0 && v[0] == '"') || name == "topic_indices" || name == "partitions" {
			return true
		}
	}
	return false
}

// readIndexed reads [[topic_index, [partition, ...]], ...].
func readIndexed(value []byte, where string) (pairs, error) {
	var items [][2]json.RawMessage
	if json.Unmarshal(value, &items) != nil {
		return pairs{}, malformed("%s is not a list of [topic_index, [partition, ...]] pairs", where)
	}
	var p pairs
	seen := map[int32]bool{}
	for _, item := range items {
		var topic int32
		var partitions []int32
		if json.Unmarshal(item[0], &topic) != nil || json.Unmarshal(item[1], &partitions) != nil || item[1] == nil {
			return pairs{}, malformed("%s is not a list of [topic_index, [partition, ...]] pairs", where)
		}
		if seen[topic] {
			return pairs{}, malformed("%s lists a topic index twice", where)
		}
		seen[topic] = true
		for _, partition := range partitions {
			p.topics = append(p.topics, topic)
			p.partitions = append(p.partitions, partition)
		}
	}
	return p, nil
}

// readNested reads {topic: [partition, ...]}, naming each topic by an index of its own.
func (f *formReader) readNested(fields map[string]json.RawMessage, where string) (pairs, error) {
	var p pairs
	for _, topic := range sortedKeys(fields) {
		var partitions []int32
		if json.Unmarshal(fields[topic], &partitions) != nil {
			return pairs{}, malformed("%s['%s'] is not a list of partition ids", where, topic)
		}
		index, known := f.nestedIndex[topic]
		if !known {
			index = int32(len(f.names))
			f.nestedIndex[topic] = index
			f.names = append(f.names, topic)
		}
		for _, partition := range partitions {
			p.topics = append(p.topics, index)
			p.partitions = append(p.partitions, partition)
		}
	}
	return p, nil
}

// check holds the answer to the view's rules and returns every member's
// partitions, topics in name order; members the request left out get nothing.
// Each partition of the group is one slot of an array (topic after topic), and
// a member's run of one topic is checked against its subscription once.
func check(view *groupView, names []string, given map[string]pairs) (groupAssignment, error) {
	asked := map[string]member{}
	for _, m := range view.asked() {
		asked[m.id] = m
		if _, present := given[m.id]; !present {
			return nil, invalid("member '%s' is missing from the answer", m.id)
		}
	}
	ids := sortedKeys(given)
	for _, id := range ids {
		if _, known := asked[id]; !known {
			return nil, invalid("the answer names unknown member '%s'", id)
		}
	}
	// Per topic index: its count (-1 when the view does not know it), its
	// first slot, and its rank among the names in name order.
	counts := make([]int32, len(names))
	firsts := make([]int, len(names))
	total := 0
	slotOf := map[string]int{}
	for _, topic := range sortedKeys(view.partitions) {
		slotOf[topic] = total
		total += int(view.partitions[topic])
	}
	for i, name := range names {
		count, known := view.partitions[name]
		if !known {
			counts[i] = -1
			continue
		}
		counts[i] = count
		firsts[i] = slotOf[name]
	}
	rank := nameRanks(names)
	// owners[slot] is 1 + the ordinal of the member given it, 0 while none is.
	owners := make([]int32, total)
	allowed := make([][]bool, len(view.subscriptions))
	out := make(groupAssignment, len(view.members))
	for _, m := range view.members {
		out[m.id] = nil
	}
	for ordinal, id := range ids {
		p := given[id]
		subscription := asked[id].subscription
		if allowed[subscription] == nil {
			in := make([]bool, len(names))
			for i, name := range names {
				_, in[i] = slices.BinarySearch(view.subscriptions[subscription], name)
			}
			allowed[subscription] = in
		}
		var member []topicPartitions
		inNameOrder := true
		for start := 0; start < len(p.topics); {
			index := p.topics[start]
			end := start + 1
			for end < len(p.topics) && p.topics[end] == index {
				end++
			}
			if index < 0 || int(index) >= len(names) {
				return nil, malformed("assignment['%s'] names a topic index that is not in 'topics'", id)
			}
			topic := names[index]
			if counts[index] < 0 {
				return nil, invalid("the answer gives unknown topic '%s' to '%s'", topic, id)
			}
			if !allowed[subscription][index] {
				return nil, invalid("the answer gives '%s' to '%s', not subscribed", topic, id)
			}
			partitions := p.partitions[start:end:end]
			if !slices.IsSorted(partitions) {
				slices.Sort(partitions)
			}
			for _, partition := range partitions {
				if partition < 0 || partition >= counts[index] {
					return nil, invalid("the answer gives unknown partition %s-%d", topic, partition)
				}
				slot := firsts[index] + int(partition)
				if owners[slot] != 0 {
					return nil, invalid("the answer gives %s-%d to both '%s' and '%s'", topic, partition,
						ids[owners[slot]-1], id)
				}
				owners[slot] = int32(ordinal + 1)
			}
			if len(member) > 0 && rank[p.topics[start-1]] > rank[index] {
				inNameOrder = false
			}
			member = append(member, topicPartitions{topic, partitions})
			start = end
		}
		if !inNameOrder {
			slices.SortFunc(member, func(a, b topicPartitions) int { return strings.Compare(a.topic, b.topic) })
		}
		out[id] = member
	}
	for _, topic := range sortedKeys(view.partitions) {
		first := slotOf[topic]
		for partition := 0; partition < int(view.partitions[topic]); partition++ {
			if owners[first+partition] == 0 {
				return nil, invalid("the answer leaves %s-%d unassigned", topic, partition)
			}
		}
	}
	return out, nil
}

// nameRanks is each topic index's place among names in name order.
func nameRanks(names []string) []int {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	rank := make([]int, len(names))
	for place, index := range order {
		rank[index] = place
	}
	return rank
}

func firstOf(first, where string) string {
	if first != "" {
		return first
	}
	return where
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}
