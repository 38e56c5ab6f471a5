package lagassign

import (
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
	back := decodeSubscription([]byte(encoded))
	if !reflect.DeepEqual(back.Owned, map[string][]int32{"t0": {0, 2}}) || *back.Generation != 7 ||
		*back.InstanceID != "web-1" || back.Rack != nil {
		t.Fatalf("decoded %+v", back)
	}
	for _, junk := range []string{"", "not json", "[1]", `{"owned": 3, "generation": "x"}`} {
		got := decodeSubscription([]byte(junk))
		if len(got.Owned) != 0 || got.Generation != nil || got.InstanceID != nil {
			t.Fatalf("%q decoded to %+v", junk, got)
		}
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
