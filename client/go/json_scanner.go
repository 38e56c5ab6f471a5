package lagassign

import (
	"bytes"
	"math"
	"unicode/utf8"
)

var nullLiteral = []byte("null")

// scanner is a cursor over JSON text.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next consumes c after any space.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) null() bool {
	s.space()
	if bytes.HasPrefix(s.b[s.i:], nullLiteral) {
		s.i += 4
		return true
	}
	return false
}

// rawString is a string's bytes; false for escapes, control characters or
// invalid UTF-8, which encoding/json reads.
func (s *scanner) rawString() ([]byte, bool) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(s.b[start:j]) {
				return nil, false
			}
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// integer is a JSON integer of at most 10 digits (no fraction, no exponent).
func (s *scanner) integer() (int64, bool) {
	s.space()
	negative := s.i < len(s.b) && s.b[s.i] == '-'
	if negative {
		s.i++
	}
	start := s.i
	value := int64(0)
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		value = value*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 10 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if negative {
		value = -value
	}
	return value, true
}

func (s *scanner) integerOK() bool {
	_, ok := s.integer()
	return ok
}

func (s *scanner) nullableInt32() (*int32, bool) {
	if s.null() {
		return nil, true
	}
	value, ok := s.integer()
	if !ok || value < math.MinInt32 || value > math.MaxInt32 {
		return nil, false
	}
	narrow := int32(value)
	return &narrow, true
}

// nullableString is a string (nil when null or empty, as the lenient reader has it).
func (s *scanner) nullableString() (*string, bool) {
	if s.null() {
		return nil, true
	}
	raw, ok := s.rawString()
	if !ok {
		return nil, false
	}
	if len(raw) == 0 {
		return nil, true
	}
	text := string(raw)
	return &text, true
}
