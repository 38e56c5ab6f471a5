package lagassign

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
)

// packedShape names the packed form in messages.
const packedShape = `{"topic_indices": "<base64>", "partitions": "<base64>"}`

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
	bytes, err := base64.StdEncoding.Strict().DecodeString(text)
	if err != nil {
		return nil, malformed("%s.%s is not base64 (RFC 4648, with padding): %v", where, field, err)
	}
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
