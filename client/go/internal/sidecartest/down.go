// Package sidecartest holds what the module's tests need of a sidecar that is
// not there.
package sidecartest

import (
	"net"
	"testing"
)

// DownURL is a sidecar URL where nothing listens: a port of 127.0.0.1 taken
// and freed again.
func DownURL(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close()
	return "http://" + address
}
