package lagassign

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// errorTextLimit is the longest line a non-200 body becomes in the log.
const errorTextLimit = 160

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// errorText is the body of a non-200 answer as one short line: the sidecar's
// own errors ({"error": {"code", "message", "details"}}) by their message, an
// HTML page by its title and size, plain text cut to one line.
func errorText(body []byte, contentType string) string {
	text := strings.TrimSpace(string(body))
	if text == "" {
		return "(empty body)"
	}
	kind := strings.ToLower(contentType)
	if strings.Contains(kind, "json") || strings.HasPrefix(text, "{") {
		var root map[string]json.RawMessage
		if json.Unmarshal(body, &root) == nil {
			var nested map[string]json.RawMessage
			if json.Unmarshal(root["error"], &nested) == nil && nested != nil {
				if message := firstText(nested, "message", "code"); message != "" {
					return shortLine(message)
				}
			} else if message := firstText(root, "message", "detail", "error"); message != "" {
				return shortLine(message)
			}
		}
	}
	lower := strings.ToLower(text)
	if strings.Contains(kind, "html") || strings.HasPrefix(lower, "<!doctype html") || strings.HasPrefix(lower, "<html") {
		named := ""
		if title := htmlTitle.FindStringSubmatch(text); title != nil {
			named = fmt.Sprintf(" %q", shortLine(title[1]))
		}
		return fmt.Sprintf("not a lagassign answer: an HTML page%s (%d bytes)", named, len(body))
	}
	return shortLine(text)
}

func firstText(root map[string]json.RawMessage, fields ...string) string {
	for _, field := range fields {
		if s := text(root[field]); s != nil && strings.TrimSpace(*s) != "" {
			return *s
		}
	}
	return ""
}

// shortLine collapses whitespace and cuts to errorTextLimit characters.
func shortLine(text string) string {
	line := strings.Join(strings.Fields(text), " ")
	if runes := []rune(line); len(runes) > errorTextLimit {
		return string(runes[:errorTextLimit-3]) + "..."
	}
	return line
}
