package lagassign

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The JSON of docs/shim-protocol.md, both ways, and lenient decoding.
func TestSubscriptionUserDataIsTheShimProtocolsJSON(t *testing.T) {
	generation, instance := int32(7), "web-1"
	data := SubscriptionUserData{Owned: map[string][]int32{"t0": {2, 0}, "t1": {}}, Generation: &generation,
		InstanceID: &instance}
	encoded := string(data.encode())
	want := `{"v":1,"owned":{"t0":[0,2]},"generation":7,"instance_id":"web-1","rack":null}`
	if encoded != want {
		t.Fatalf("got %s, want %s", encoded, want)
	}
	back := decodeSubscription([]byte(encoded), interner{})
	if !reflect.DeepEqual(back.owned, []topicPartitions{{"t0", []int32{0, 2}}}) || *back.generation != 7 ||
		*back.instanceID != "web-1" || back.rack != nil {
		t.Fatalf("decoded %+v", back)
	}
	for _, junk := range []string{"", "not json", "[1]", `{"owned": 3, "generation": "x"}`} {
		got := decodeSubscription([]byte(junk), interner{})
		if len(got.owned) != 0 || got.generation != nil || got.instanceID != nil {
			t.Fatalf("%q decoded to %+v", junk, got)
		}
	}
}

// The one-pass scanner reads what encoding/json reads, and leaves to it what it cannot.
func TestTheScannerReadsUserDataAsEncodingJSONDoes(t *testing.T) {
	scanned := []string{
		`{"v":1,"owned":{"t1":[3,1,1],"t0":[2,-1,0]},"generation":7,"instance_id":"web-1","rack":"eu-1a"}`,
		` { "v" : 1 , "owned" : { } , "generation" : null , "instance_id" : null , "rack" : null } `,
		`{"owned": {"t0": [], "t1": null}, "generation": -1, "rack": ""}`,
		`{"owned": null, "instance_id": "héllo"}`,
		`{}`,
	}
	for _, raw := range scanned {
		fast, ok := scanSubscription([]byte(raw), interner{})
		if !ok {
			t.Fatalf("the scanner refused %s", raw)
		}
		var typed subscriptionJSON
		if err := json.Unmarshal([]byte(raw), &typed); err != nil {
			t.Fatal(err)
		}
		slow := SubscriptionUserData{Owned: map[string][]int32{}, Generation: typed.Generation,
			InstanceID: typed.InstanceID, Rack: typed.Rack}
		if slow.Rack != nil && *slow.Rack == "" {
			slow.Rack = nil
		}
		for topic, partitions := range typed.Owned {
			if kept := ownedPartitions(partitions); len(kept) > 0 {
				slow.Owned[topic] = kept
			}
		}
		if want := slow.forLeader(); !reflect.DeepEqual(fast, want) {
			t.Fatalf("%s: scanned %+v, encoding/json %+v", raw, fast, want)
		}
	}
	left := []string{
		`{"owned": {"t\u0030": [1]}}`, // an escape
		`{"owned": {"t0": [1.5]}}`,    // not an integer
		`{"owned": {"t0": [1], "t0": [2]}}`,
		`{"v": 1, "other": true}`,
		`{"v": 1} trailing`,
		`{"generation": 3000000000}`,
	}
	for _, raw := range left {
		if _, ok := scanSubscription([]byte(raw), interner{}); ok {
			t.Fatalf("the scanner read %s", raw)
		}
	}
	if got := decodeSubscription([]byte(left[0]), interner{}); !reflect.DeepEqual(got.owned,
		[]topicPartitions{{"t0", []int32{1}}}) {
		t.Fatalf("an escaped topic name read as %+v", got.owned)
	}
}

func TestTheAssignmentNoteIsTheShimProtocolsJSON(t *testing.T) {
	note := AssignmentNote{By: ByRange, Reason: ReasonTimeout}
	if got := string(note.encode()); got != `{"v":1,"by":"range","reason":"timeout"}` {
		t.Fatalf("got %s", got)
	}
	back, ok := decodeNote([]byte(`{"v": 1, "by": "sidecar", "strategy": "balanced"}`))
	if !ok || back != (AssignmentNote{By: BySidecar, Strategy: "balanced"}) {
		t.Fatalf("got %+v %v", back, ok)
	}
	if _, ok := decodeNote([]byte(`{"by": "someone"}`)); ok {
		t.Fatal("an unknown author read as a note")
	}
}
