package lagassign

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// packedShape names the packed form in messages.
const packedShape = `{"topic_indices": "<base64>", "partitions": "<base64>"}`

// packedMembers reads every member of assignment or revoked (key), each an
// object of the two packed arrays.
func packedMembers(raw map[string]json.RawMessage, key string) (map[string]pairs, error) {
	out := make(map[string]pairs, len(raw))
	for _, id := range sortedKeys(raw) {
		where := fmt.Sprintf("%s['%s']", key, id)
		if p, ok, err := scanPacked(raw[id], where); ok {
			if err != nil {
				return nil, err
			}
			out[id] = p
			continue
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw[id], &fields) != nil || fields == nil {
			return nil, malformed("%s is not %s", where, packedShape)
		}
		p, err := readPacked(fields, where)
		if err != nil {
			return nil, err
		}
		out[id] = p
	}
	return out, nil
}

// readPacked reads one member's packed object: two equally long arrays of
// unsigned 32-bit little-endian integers in standard base64 with padding
// (RFC 4648, section 4), element i of both one partition, in strictly
// ascending (topic index, partition) order. where names the member in
// messages (assignment['c-1']).
func readPacked(fields map[string]json.RawMessage, where string) (pairs, error) {
	for field := range fields {
		if field != "topic_indices" && field != "partitions" {
			return pairs{}, malformed("%s is not %s: it has a field '%s'", where, packedShape, field)
		}
	}
	topics, err := packedIntegers(fields, "topic_indices", where)
	if err != nil {
		return pairs{}, err
	}
	partitions, err := packedIntegers(fields, "partitions", where)
	if err != nil {
		return pairs{}, err
	}
	return packedPairs(topics, partitions, where)
}

// packedPairs checks the two arrays: equally long, in strictly ascending
// (topic index, partition) order.
func packedPairs(topics, partitions []int32, where string) (pairs, error) {
	if len(topics) != len(partitions) {
		return pairs{}, malformed("%s has %d topic indices but %d partitions", where, len(topics), len(partitions))
	}
	for i := 1; i < len(partitions); i++ {
		if topics[i] < topics[i-1] || (topics[i] == topics[i-1] && partitions[i] <= partitions[i-1]) {
			return pairs{}, malformed("%s is not in strictly ascending (topic index, partition) order at element %d: "+
				"(%d, %d) then (%d, %d)", where, i, topics[i-1], partitions[i-1], topics[i], partitions[i])
		}
	}
	return pairs{topics: topics, partitions: partitions}, nil
}

// scanPacked reads a packed member's object in one pass when it is exactly
// the two fields with strings without escapes; ok is false for anything
// else, which readPacked reads and names.
func scanPacked(value []byte, where string) (p pairs, ok bool, err error) {
	s := &scanner{b: value}
	if !s.next('{') {
		return pairs{}, false, nil
	}
	var topics, partitions []byte
	for {
		key, ok := s.rawString()
		if !ok || !s.next(':') {
			return pairs{}, false, nil
		}
		text, ok := s.rawString()
		if !ok {
			return pairs{}, false, nil
		}
		switch {
		case string(key) == "topic_indices" && topics == nil:
			topics = text
		case string(key) == "partitions" && partitions == nil:
			partitions = text
		default:
			return pairs{}, false, nil
		}
		if s.next(',') {
			continue
		}
		if s.next('}') {
			break
		}
		return pairs{}, false, nil
	}
	s.space()
	if s.i != len(s.b) || topics == nil || partitions == nil {
		return pairs{}, false, nil
	}
	topicIndices, err := base64Integers(topics, "topic_indices", where)
	if err != nil {
		return pairs{}, true, err
	}
	partitionIDs, err := base64Integers(partitions, "partitions", where)
	if err != nil {
		return pairs{}, true, err
	}
	p, err = packedPairs(topicIndices, partitionIDs, where)
	return p, true, err
}

// packedIntegers decodes one field's base64 as little-endian integers below 2^31.
func packedIntegers(fields map[string]json.RawMessage, field, where string) ([]int32, error) {
	raw, present := fields[field]
	if !present {
		return nil, malformed("%s is not %s: it has no '%s'", where, packedShape, field)
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return nil, malformed("%s is not %s: '%s' is not a string", where, packedShape, field)
	}
	return base64Integers([]byte(text), field, where)
}

// base64Integers decodes standard base64 (with padding) as little-endian
// integers below 2^31.
func base64Integers(text []byte, field, where string) ([]int32, error) {
	bytes := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Strict().Decode(bytes, text)
	if err != nil {
		return nil, malformed("%s.%s is not base64 (RFC 4648, with padding): %v", where, field, err)
	}
	bytes = bytes[:n]
	if len(bytes)%4 != 0 {
		return nil, malformed("%s.%s is %d bytes, not a whole number of 4-byte integers", where, field, len(bytes))
	}
	values := make([]int32, len(bytes)/4)
	for i := range values {
		value := binary.LittleEndian.Uint32(bytes[4*i:])
		if value >= 1<<31 {
			return nil, malformed("%s.%s[%d] is %d, not below 2^31", where, field, i, value)
		}
		values[i] = int32(value)
	}
	return values, nil
}
