package lagassign

import "slices"

// topicPartitions is one topic's partitions given to a member, ascending.
type topicPartitions struct {
	topic      string
	partitions []int32
}

// groupAssignment is member id -> its partitions, topics in name order. At a
// million partitions it is a slice per member, not a map per member.
type groupAssignment map[string][]topicPartitions

// assignmentOf orders a member -> topic -> partitions map (franz-go's plans).
func assignmentOf(plan map[string]map[string][]int32) groupAssignment {
	out := make(groupAssignment, len(plan))
	for member, topics := range plan {
		given := make([]topicPartitions, 0, len(topics))
		for _, topic := range sortedKeys(topics) {
			partitions := slices.Clone(topics[topic])
			slices.Sort(partitions)
			given = append(given, topicPartitions{topic, partitions})
		}
		out[member] = given
	}
	return out
}

// asMap is the assignment as member -> topic -> partitions.
func (a groupAssignment) asMap() map[string]map[string][]int32 {
	out := make(map[string]map[string][]int32, len(a))
	for member, given := range a {
		topics := make(map[string][]int32, len(given))
		for _, tp := range given {
			topics[tp.topic] = tp.partitions
		}
		out[member] = topics
	}
	return out
}

// partitionCount is how many partitions the assignment gives.
func (a groupAssignment) partitionCount() int {
	total := 0
	for _, given := range a {
		for _, tp := range given {
			total += len(tp.partitions)
		}
	}
	return total
}
