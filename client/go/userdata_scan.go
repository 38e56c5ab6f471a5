package lagassign

import (
	"github.com/twmb/franz-go/pkg/kmsg"
	"math"
	"slices"
	"strings"
)

// memberUserData is what the leader reads of a member's subscription user
// data: owned partitions with topics in name order (a slice, not a map: a
// million owned partitions are 2,000 members' slices), the rest as given.
type memberUserData struct {
	owned      []topicPartitions
	generation *int32
	instanceID *string
	rack       *string
}

// interner gives every member's copy of a topic name one string.
type interner map[string]string

func (names interner) of(raw []byte) string {
	if name, ok := names[string(raw)]; ok {
		return name
	}
	name := string(raw)
	names[name] = name
	return name
}

// scanSubscription reads user data of exactly the shape every shim writes
// ({"v", "owned", "generation", "instance_id", "rack"}, strings without
// escapes) in one pass without reflection; ok is false for anything else,
// which decodeSubscription then reads with encoding/json.
func scanSubscription(raw []byte, names interner) (data memberUserData, ok bool) {
	s := &scanner{b: raw}
	if !s.next('{') {
		return data, false
	}
	if !s.next('}') {
		for {
			key, ok := s.rawString()
			if !ok || !s.next(':') {
				return data, false
			}
			switch string(key) {
			case "v":
				ok = !s.null() && s.integerOK()
			case "owned":
				ok = s.owned(&data, names)
			case "generation":
				data.generation, ok = s.nullableInt32()
			case "instance_id":
				data.instanceID, ok = s.nullableString()
			case "rack":
				data.rack, ok = s.nullableString()
			case "cooperative_sticky":
				// The cooperative fallback's own user data, carried for the Java shim.
				_, ok = s.nullableString()
			default:
				ok = false
			}
			if !ok {
				return data, false
			}
			if s.next(',') {
				continue
			}
			if s.next('}') {
				break
			}
			return data, false
		}
	}
	s.space()
	return data, s.i == len(s.b)
}

// owned reads {"topic": [partition, ...], ...}: negative ids dropped, each
// topic's ids sorted once, topics in name order; a topic named twice is left
// to encoding/json.
func (s *scanner) owned(data *memberUserData, names interner) bool {
	data.owned = nil
	if s.null() {
		return true
	}
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	type span struct {
		topic      string
		start, end int
	}
	var spans []span
	var ids []int32
	for {
		key, ok := s.rawString()
		if !ok || !s.next(':') {
			return false
		}
		start := len(ids)
		if !s.null() {
			if !s.next('[') {
				return false
			}
			if !s.next(']') {
				for {
					value, ok := s.integer()
					if !ok || value < math.MinInt32 || value > math.MaxInt32 {
						return false
					}
					if value >= 0 {
						ids = append(ids, int32(value))
					}
					if s.next(',') {
						continue
					}
					if s.next(']') {
						break
					}
					return false
				}
			}
		}
		spans = append(spans, span{names.of(key), start, len(ids)})
		if s.next(',') {
			continue
		}
		if s.next('}') {
			break
		}
		return false
	}
	owned := make([]topicPartitions, 0, len(spans))
	for _, sp := range spans {
		if sp.end == sp.start {
			continue
		}
		partitions := ids[sp.start:sp.end:sp.end]
		if !slices.IsSorted(partitions) {
			slices.Sort(partitions)
		}
		owned = append(owned, topicPartitions{sp.topic, slices.Compact(partitions)})
	}
	byName := func(a, b topicPartitions) int { return strings.Compare(a.topic, b.topic) }
	if !slices.IsSortedFunc(owned, byName) {
		slices.SortFunc(owned, byName)
	}
	for i := 1; i < len(owned); i++ {
		if owned[i].topic == owned[i-1].topic {
			return false
		}
	}
	if len(owned) > 0 {
		data.owned = owned
	}
	return true
}

// useKafkaOwnership takes the owned partitions and the generation the member's
// consumer protocol metadata reports (v1 and v2 on), as a cooperative leader
// must: they are what the client revokes from.
func (d *memberUserData) useKafkaOwnership(meta *kmsg.ConsumerMemberMetadata, names interner) {
	var owned []topicPartitions
	for _, topic := range meta.OwnedPartitions {
		if kept := ownedPartitions(slices.Clone(topic.Partitions)); len(kept) > 0 {
			owned = append(owned, topicPartitions{names.of([]byte(topic.Topic)), kept})
		}
	}
	slices.SortFunc(owned, func(a, b topicPartitions) int { return strings.Compare(a.topic, b.topic) })
	d.owned = owned
	if meta.Generation >= 0 {
		generation := meta.Generation
		d.generation = &generation
	}
}
