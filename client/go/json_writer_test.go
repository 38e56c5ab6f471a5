package lagassign

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every string reads back as encoding/json reads it: escapes, control
// characters, non-ASCII, invalid UTF-8 (as U+FFFD).
func TestStringsAreWrittenAsValidJSON(t *testing.T) {
	for _, text := range []string{"", "consumer-1-9b2f", `a"b\c`, "tab\there\nnew\x00\x1f", "héllo ✓ \u2028",
		"<&>", "bad \xff\xfe utf8", strings.Repeat("x", 70)} {
		w := &jsonWriter{}
		w.string(text)
		var back string
		if err := json.Unmarshal(w.out, &back); err != nil {
			t.Fatalf("%q written as %s: %v", text, w.out, err)
		}
		want := strings.ToValidUTF8(text, "\ufffd")
		if strings.Contains(text, "\xff\xfe") {
			want = strings.ReplaceAll(text, "\xff\xfe", "\ufffd\ufffd")
		}
		if back != want {
			t.Fatalf("%q read back as %q", text, back)
		}
	}
}
