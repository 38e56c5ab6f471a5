package lagassign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// assignPath is the sidecar's route for a rebalance.
const assignPath = "/assign"

// maxAnswerBytes bounds what the leader reads of an answer (a million
// partitions in the packed form are about 11 MB).
const maxAnswerBytes = 256 << 20

// sidecar is the POST /assign call, bounded by a hard total deadline: the
// context covers the connection, the request and reading the whole answer.
type sidecar struct {
	assignURL string
	host      string
	token     string
	client    *http.Client
}

func newSidecar(base *url.URL, token string) *sidecar {
	transport := &http.Transport{
		Proxy: nil,
		// An idle connection is kept 1 s only, well under the sidecar's
		// keep-alive timeout (5 s by default): a request sent on a
		// connection the sidecar is closing would fail for nothing.
		IdleConnTimeout:   time.Second,
		ForceAttemptHTTP2: false,
	}
	return &sidecar{
		assignURL: strings.TrimSuffix(base.String(), "/") + assignPath,
		host:      base.Host,
		token:     token,
		client: &http.Client{Transport: transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
}

// postAssign sends one request and returns the body of a 200 answer, or a
// fallback error: timeout, unknown_host, connection_refused, unreachable or status.
func (s *sidecar) postAssign(ctx context.Context, body []byte, timeout time.Duration) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.assignURL, bytes.NewReader(body))
	if err != nil {
		return nil, fallback(ReasonUnreachable, "%s: %v", s.assignURL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	response, err := s.client.Do(req)
	if err != nil {
		return nil, s.connectionFailure(ctx, err, timeout)
	}
	defer response.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(response.Body, maxAnswerBytes))
	if err != nil {
		return nil, s.connectionFailure(ctx, err, timeout)
	}
	if response.StatusCode != http.StatusOK {
		return nil, fallback(ReasonStatus, "%s answered HTTP %d: %s", s.assignURL, response.StatusCode,
			errorText(answer, response.Header.Get("Content-Type")))
	}
	return answer, nil
}

// connectionFailure tells a timeout, an unknown host, a refused connection
// and any other connection error apart.
func (s *sidecar) connectionFailure(ctx context.Context, err error, timeout time.Duration) error {
	var dns *net.DNSError
	switch {
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return fallback(ReasonTimeout, "no answer from %s within %d ms", s.assignURL, timeout.Milliseconds())
	case errors.As(err, &dns) && dns.IsNotFound:
		return fallback(ReasonUnknownHost, "the sidecar's host '%s' does not resolve (%s)", dns.Name, s.assignURL)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fallback(ReasonConnectionRefused, "connection refused by %s (%s): is the sidecar running there?",
			s.host, s.assignURL)
	default:
		return fallback(ReasonUnreachable, "%s: %v", s.assignURL, err)
	}
}

func isTimeout(err error) bool {
	var timeout interface{ Timeout() bool }
	return errors.As(err, &timeout) && timeout.Timeout()
}

// checkURL refuses a URL the shim cannot use.
func checkURL(raw string) (*url.URL, error) {
	parsed, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("lagassign: URL %q: %v", raw, err)
	}
	if (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, fmt.Errorf("lagassign: URL %q is not an http(s) URL with a host", raw)
	}
	if strings.HasSuffix(strings.TrimSuffix(parsed.Path, "/"), assignPath) {
		return nil, fmt.Errorf("lagassign: URL %q ends in %s: give the sidecar's base URL, the shim adds %s",
			raw, assignPath, assignPath)
	}
	return parsed, nil
}
