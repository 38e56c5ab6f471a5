package grouptest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// logLines keeps every record a member's balancer logs.
type logLines struct {
	mu    sync.Mutex
	lines []line
}

type line struct {
	level   slog.Level
	message string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }

func (l *logLines) Handle(_ context.Context, record slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line{record.Level, record.Message})
	return nil
}

func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

// at is the messages logged at level.
func (l *logLines) at(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, entry := range l.lines {
		if entry.level == level {
			out = append(out, entry.message)
		}
	}
	return out
}

// containing is the messages at level that contain text.
func (l *logLines) containing(level slog.Level, text string) []string {
	var out []string
	for _, message := range l.at(level) {
		if strings.Contains(message, text) {
			out = append(out, message)
		}
	}
	return out
}
