package lagassign

import (
	"bytes"
	"encoding/json"
	"fmt"
)

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

func firstOf(first, where string) string {
	if first != "" {
		return first
	}
	return where
}
