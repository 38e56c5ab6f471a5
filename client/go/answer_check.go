package lagassign

import (
	"slices"
	"strings"
)

// check holds the answer to the view's rules and returns every member's
// partitions, topics in name order; members the request left out get nothing.
// Each partition of the group is one slot of an array (topic after topic), and
// a member's run of one topic is checked against its subscription once.
func check(view *groupView, names []string, given, withheld map[string]pairs) (groupAssignment, error) {
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
	var owned *cooperativeOwners
	if view.cooperative {
		owned = newCooperativeOwners(view, slotOf, total)
	}
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
				if owned != nil {
					if err := owned.mayGive(slot, id, topic, partition); err != nil {
						return nil, err
					}
				}
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
	if owned != nil {
		// A withheld partition is placed too: its owner revokes it, and the
		// follow-up rebalance gives it to its new member.
		if err := owned.withhold(withheld, names, counts, firsts, owners); err != nil {
			return nil, err
		}
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
