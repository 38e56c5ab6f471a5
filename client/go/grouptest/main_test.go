package grouptest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The broker and the sidecar every test of this package shares.
var (
	broker  *localBroker
	sidecar *sidecarProcess
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "lagassign-go-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	broker, err = startBroker(repo, filepath.Join(dir, "kafka"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := broker.stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}()
	sidecar, err = startSidecar(repo, broker.bootstrap, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer sidecar.stop()
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "the sidecar's log, last lines:\n%s\n", sidecar.logTail())
	}
	return code
}
