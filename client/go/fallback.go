package lagassign

import "fmt"

// Outcome labels: how one rebalance this consumer led was assigned. The labels
// are the Java and Python shims' own.
const (
	// OutcomeSidecar is the sidecar's answer, every partition's lag known.
	OutcomeSidecar = "sidecar"
	// OutcomeLagBlind is the sidecar's answer made without any lag (lag source none).
	OutcomeLagBlind = "lag_blind"
	// OutcomeLagPartial is the sidecar's answer made without some partitions' lag.
	OutcomeLagPartial = "lag_partial"

	// ReasonTimeout: no answer within the deadline.
	ReasonTimeout = "timeout"
	// ReasonUnknownHost: the URL's host does not resolve.
	ReasonUnknownHost = "unknown_host"
	// ReasonConnectionRefused: nothing listens at the URL.
	ReasonConnectionRefused = "connection_refused"
	// ReasonUnreachable: any other connection error (reset, no route, TLS).
	ReasonUnreachable = "unreachable"
	// ReasonStatus: an HTTP status other than 200.
	ReasonStatus = "status"
	// ReasonMalformed: not JSON, or not the answer's shape.
	ReasonMalformed = "malformed"
	// ReasonInvalid: the answer contradicts the leader's metadata.
	ReasonInvalid = "invalid"
	// ReasonMetadata: the leader's own metadata has gaps; the sidecar is not asked.
	ReasonMetadata = "metadata"
)

// FallbackReasons lists every reason the leader falls back to range.
var FallbackReasons = []string{
	ReasonTimeout, ReasonUnknownHost, ReasonConnectionRefused, ReasonUnreachable,
	ReasonStatus, ReasonMalformed, ReasonInvalid, ReasonMetadata,
}

// Outcomes lists every outcome label, answers first.
var Outcomes = append([]string{OutcomeSidecar, OutcomeLagBlind, OutcomeLagPartial}, FallbackReasons...)

// fallbackError is why the leader did not use the sidecar's answer.
type fallbackError struct {
	reason  string
	message string
}

func (e *fallbackError) Error() string { return e.reason + ": " + e.message }

func fallback(reason, format string, args ...any) *fallbackError {
	return &fallbackError{reason: reason, message: fmt.Sprintf(format, args...)}
}

func malformed(format string, args ...any) *fallbackError {
	return fallback(ReasonMalformed, format, args...)
}

func invalid(format string, args ...any) *fallbackError {
	return fallback(ReasonInvalid, format, args...)
}
