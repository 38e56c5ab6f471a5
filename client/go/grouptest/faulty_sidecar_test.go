package grouptest

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// hungSidecar accepts the request and never answers, until the test ends.
func hungSidecar(t *testing.T) string {
	release := make(chan struct{})
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); server.Close() })
	return server.URL
}

// slowSidecar answers as the real sidecar does, but only after delay.
func slowSidecar(t *testing.T, delay time.Duration) string {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		late := time.NewTimer(delay)
		defer late.Stop()
		select {
		case <-late.C:
		case <-r.Context().Done():
			return
		}
		forward, err := http.NewRequest(r.Method, sidecar.url+r.URL.Path, r.Body)
		if err != nil {
			return
		}
		forward.Header = r.Header.Clone()
		response, err := http.DefaultClient.Do(forward)
		if err != nil {
			return
		}
		defer response.Body.Close()
		w.WriteHeader(response.StatusCode)
		buffer := make([]byte, 64<<10)
		for {
			n, err := response.Body.Read(buffer)
			w.Write(buffer[:n])
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(server.Close)
	return server.URL
}

// garbageSidecar answers 200 with a body that is not the answer's JSON.
func garbageSidecar(t *testing.T) string {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"assignment": "surely not", "topics": [1, 2]}`))
	}))
	t.Cleanup(server.Close)
	return server.URL
}
