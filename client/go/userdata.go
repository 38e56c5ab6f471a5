package lagassign

import (
	"encoding/json"
	"slices"
	"sort"
)

// userDataVersion is the "v" of the lagassign protocol's user data.
const userDataVersion = 1

// Who made an assignment, in the assignment user data's "by".
const (
	BySidecar           = "sidecar"
	ByRange             = "range"
	ByCooperativeSticky = "cooperative-sticky"
)

// SubscriptionUserData is what a member tells the leader in its subscription
// (docs/shim-protocol.md): {"v": 1, "owned": {"t0": [0, 2]}, "generation": 7,
// "instance_id": "web-1", "rack": null}.
type SubscriptionUserData struct {
	// Owned is topic -> sorted partition ids the member holds now.
	Owned map[string][]int32
	// Generation of the assignment Owned came from, or nil.
	Generation *int32
	// InstanceID is the member's static id (group.instance.id), or nil.
	InstanceID *string
	// Rack is the member's rack, or nil.
	Rack *string
	// carried is the cooperative fallback's own user data (cooperative_sticky).
	carried []byte
}

type subscriptionJSON struct {
	V          int                `json:"v"`
	Owned      map[string][]int32 `json:"owned"`
	Generation *int32             `json:"generation"`
	InstanceID *string            `json:"instance_id"`
	Rack       *string            `json:"rack"`
	Carried    []byte             `json:"cooperative_sticky,omitempty"`
}

// encode writes the compact JSON, topics with no partition left out.
func (s SubscriptionUserData) encode() []byte {
	owned := make(map[string][]int32, len(s.Owned))
	for topic, partitions := range s.Owned {
		if len(partitions) > 0 {
			sorted := slices.Clone(partitions)
			slices.Sort(sorted)
			owned[topic] = slices.Compact(sorted)
		}
	}
	body, err := json.Marshal(subscriptionJSON{V: userDataVersion, Owned: owned,
		Generation: s.Generation, InstanceID: s.InstanceID, Rack: s.Rack, Carried: s.carried})
	if err != nil {
		panic("lagassign: the subscription user data failed to encode: " + err.Error())
	}
	return body
}

// decodeSubscription reads a member's user data leniently: absent, not JSON
// or of another shape reads as nothing known, and never fails the rebalance.
// User data of the shape every shim writes is scanned in one pass
// (scanSubscription); anything else is read with encoding/json, typed, then
// field by field.
func decodeSubscription(raw []byte, names interner) memberUserData {
	if data, ok := scanSubscription(raw, names); ok {
		return data
	}
	var typed subscriptionJSON
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &typed) == nil {
		data := SubscriptionUserData{Owned: map[string][]int32{},
			Generation: typed.Generation, InstanceID: typed.InstanceID, Rack: typed.Rack}
		if data.InstanceID != nil && *data.InstanceID == "" {
			data.InstanceID = nil
		}
		if data.Rack != nil && *data.Rack == "" {
			data.Rack = nil
		}
		for topic, partitions := range typed.Owned {
			if kept := ownedPartitions(partitions); len(kept) > 0 {
				data.Owned[topic] = kept
			}
		}
		return data.forLeader()
	}
	return decodeSubscriptionLeniently(raw).forLeader()
}

// forLeader is the data with owned topics in name order.
func (s SubscriptionUserData) forLeader() memberUserData {
	out := memberUserData{generation: s.Generation, instanceID: s.InstanceID, rack: s.Rack}
	for _, topic := range sortedKeys(s.Owned) {
		if len(s.Owned[topic]) > 0 {
			out.owned = append(out.owned, topicPartitions{topic, s.Owned[topic]})
		}
	}
	return out
}

// ownedPartitions is partitions without negative ids, sorted, each once.
func ownedPartitions(partitions []int32) []int32 {
	kept := partitions[:0]
	for _, p := range partitions {
		if p >= 0 {
			kept = append(kept, p)
		}
	}
	if !slices.IsSorted(kept) {
		slices.Sort(kept)
	}
	return slices.Compact(kept)
}

// decodeSubscriptionLeniently reads what it can of user data of another shape.
func decodeSubscriptionLeniently(raw []byte) SubscriptionUserData {
	var root map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &root) != nil || root == nil {
		return SubscriptionUserData{}
	}
	data := SubscriptionUserData{Owned: map[string][]int32{}}
	var owned map[string]json.RawMessage
	if json.Unmarshal(root["owned"], &owned) == nil {
		for topic, list := range owned {
			var items []json.RawMessage
			if json.Unmarshal(list, &items) != nil {
				continue
			}
			var partitions []int32
			for _, item := range items {
				var p int32
				if json.Unmarshal(item, &p) == nil && p >= 0 {
					partitions = append(partitions, p)
				}
			}
			if len(partitions) > 0 {
				sort.Slice(partitions, func(i, j int) bool { return partitions[i] < partitions[j] })
				data.Owned[topic] = slices.Compact(partitions)
			}
		}
	}
	var generation int32
	if json.Unmarshal(root["generation"], &generation) == nil && string(root["generation"]) != "null" {
		data.Generation = &generation
	}
	data.InstanceID = text(root["instance_id"])
	data.Rack = text(root["rack"])
	return data
}

// AssignmentNote is the assignment user data the leader gives every member:
// {"v": 1, "by": "sidecar", "strategy": "balanced"} or {"v": 1, "by": "range",
// "reason": "timeout"}.
type AssignmentNote struct {
	// By is "sidecar" or "range" (the fallback).
	By string `json:"by"`
	// Strategy is the sidecar's strategy, or empty.
	Strategy string `json:"strategy,omitempty"`
	// Reason is the fallback's reason, lag_blind or lag_partial, or empty.
	Reason string `json:"reason,omitempty"`
}

func (n AssignmentNote) encode() []byte {
	body, err := json.Marshal(struct {
		V int `json:"v"`
		AssignmentNote
	}{userDataVersion, n})
	if err != nil {
		panic("lagassign: the assignment note failed to encode: " + err.Error())
	}
	return body
}

// decodeNote reads the leader's note leniently; ok is false when it is not one.
func decodeNote(raw []byte) (note AssignmentNote, ok bool) {
	var root map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &root) != nil || root == nil {
		return AssignmentNote{}, false
	}
	by := text(root["by"])
	if by == nil || (*by != BySidecar && *by != ByRange && *by != "cooperative-sticky") {
		return AssignmentNote{}, false
	}
	note.By = *by
	if s := text(root["strategy"]); s != nil {
		note.Strategy = *s
	}
	if r := text(root["reason"]); r != nil {
		note.Reason = *r
	}
	return note, true
}

// text is a non-empty JSON string, else nil.
func text(raw json.RawMessage) *string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil || s == "" {
		return nil
	}
	return &s
}
