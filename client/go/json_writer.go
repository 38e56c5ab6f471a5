package lagassign

import (
	"strconv"
	"unicode/utf8"
)

// jsonWriter appends JSON to a byte slice: the request at a million
// partitions is written in one pass, without reflection or a map per member.
type jsonWriter struct {
	out []byte
}

func (w *jsonWriter) raw(text string) { w.out = append(w.out, text...) }

func (w *jsonWriter) int(value int64) { w.out = strconv.AppendInt(w.out, value, 10) }

// string writes a JSON string as encoding/json does: quotes, backslashes and
// control characters escaped, invalid UTF-8 as U+FFFD.
func (w *jsonWriter) string(text string) {
	w.out = append(w.out, '"')
	for i := 0; i < len(text); {
		c := text[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			w.out = append(w.out, c)
			i++
			continue
		}
		switch {
		case c == '"' || c == '\\':
			w.out = append(w.out, '\\', c)
			i++
		case c < 0x20:
			w.out = append(w.out, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			i++
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size == 1 {
				w.out = append(w.out, `\ufffd`...)
			} else {
				w.out = append(w.out, text[i:i+size]...)
			}
			i += size
		}
	}
	w.out = append(w.out, '"')
}

// optional writes a JSON string, or null.
func (w *jsonWriter) optional(text *string) {
	if text == nil {
		w.raw("null")
		return
	}
	w.string(*text)
}
