package lagassign

import (
	"slices"
	"strings"
)

// cooperativeOwners holds a cooperative answer to the protocol's rules: a
// partition that changes owner is withheld this round (listed in 'revoked'
// under the member that owns it), never given straight to its new member,
// and never both given and withheld. Example: c-1 owns t-0 and t-1, c-2
// nothing: {c-1: [t-0], c-2: []} with t-1 withheld from c-1 keeps the rules;
// {c-1: [t-0], c-2: [t-1]} breaks them (t-1 would be read by both for a moment).
type cooperativeOwners struct {
	view *groupView
	// ownerOf[slot] is 1 + the index in view.members of the member owning it,
	// 0 when none does, -1 when several claim it (then listed in several).
	ownerOf []int32
	several map[int][]string
	index   map[string]int
}

func newCooperativeOwners(view *groupView, slotOf map[string]int, total int) *cooperativeOwners {
	c := &cooperativeOwners{view: view, ownerOf: make([]int32, total), several: map[int][]string{},
		index: make(map[string]int, len(view.members))}
	for i, m := range view.members {
		c.index[m.id] = i
		for _, tp := range m.userData.owned {
			count, known := view.partitions[tp.topic]
			if !known {
				continue
			}
			for _, p := range tp.partitions {
				if p >= count {
					continue
				}
				slot := slotOf[tp.topic] + int(p)
				switch c.ownerOf[slot] {
				case 0:
					c.ownerOf[slot] = int32(i + 1)
				case -1:
					c.several[slot] = append(c.several[slot], m.id)
				default:
					c.several[slot] = []string{view.members[c.ownerOf[slot]-1].id, m.id}
					c.ownerOf[slot] = -1
				}
			}
		}
	}
	return c
}

// owns says whether member owns the partition in slot.
func (c *cooperativeOwners) owns(slot int, member string) bool {
	switch owner := c.ownerOf[slot]; owner {
	case 0:
		return false
	case -1:
		return slices.Contains(c.several[slot], member)
	default:
		return c.view.members[owner-1].id == member
	}
}

// owners names who owns slot, for messages.
func (c *cooperativeOwners) owners(slot int) string {
	if c.ownerOf[slot] == -1 {
		return "[" + strings.Join(c.several[slot], ", ") + "]"
	}
	return "'" + c.view.members[c.ownerOf[slot]-1].id + "'"
}

// mayGive refuses a partition given straight from its owner to another member.
func (c *cooperativeOwners) mayGive(slot int, member, topic string, partition int32) error {
	if c.ownerOf[slot] == 0 || c.owns(slot, member) {
		return nil
	}
	return invalid("the answer moves %s-%d from %s to '%s' in one cooperative rebalance; it must be revoked first",
		topic, partition, c.owners(slot), member)
}

// withhold places every withheld partition after checking that its member
// owns it and that nobody is given it; owners marks a withheld slot -1.
func (c *cooperativeOwners) withhold(withheld map[string]pairs, names []string, counts []int32, firsts []int,
	owners []int32) error {
	for _, member := range sortedKeys(withheld) {
		p := withheld[member]
		if len(p.partitions) == 0 {
			continue
		}
		if _, known := c.index[member]; !known {
			return invalid("the answer withholds partitions from unknown member '%s'", member)
		}
		for i, index := range p.topics {
			if index < 0 || int(index) >= len(names) {
				return malformed("revoked['%s'] names a topic index that is not in 'topics'", member)
			}
			topic, partition := names[index], p.partitions[i]
			if counts[index] < 0 || partition < 0 || partition >= counts[index] {
				return invalid("the answer withholds unknown partition %s-%d from '%s'", topic, partition, member)
			}
			slot := firsts[index] + int(partition)
			if !c.owns(slot, member) {
				return invalid("the answer withholds %s-%d from '%s', which does not own it", topic, partition, member)
			}
			if owners[slot] > 0 {
				return invalid("the answer both gives %s-%d to a member and withholds it from '%s'",
					topic, partition, member)
			}
			if owners[slot] < 0 {
				return invalid("the answer withholds %s-%d twice", topic, partition)
			}
			owners[slot] = -1
		}
	}
	return nil
}
