package grouptest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// localBroker is the project's local Kafka broker in a directory of its own.
type localBroker struct {
	script    string
	dir       string
	bootstrap string
}

// startBroker starts a fresh broker on a free port and waits until it answers.
func startBroker(repo, dir string) (*localBroker, error) {
	b := &localBroker{script: filepath.Join(repo, "deploy", "local-kafka", "kafka"), dir: dir}
	out, err := exec.Command(b.script, "start", "--port", "0", "--dir", dir, "--timeout", "180").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("kafka start: %v\n%s", err, tail(out))
	}
	raw, err := os.ReadFile(filepath.Join(dir, "broker.json"))
	if err != nil {
		return nil, err
	}
	var state struct {
		Bootstrap string `json:"bootstrap"`
	}
	if err := json.Unmarshal(raw, &state); err != nil || state.Bootstrap == "" {
		return nil, fmt.Errorf("broker.json without a bootstrap address: %s", raw)
	}
	b.bootstrap = state.Bootstrap
	return b, nil
}

// stop stops the broker this test started (the script ends its own pid).
func (b *localBroker) stop() error {
	out, err := exec.Command(b.script, "stop", "--dir", b.dir, "--timeout", "30").CombinedOutput()
	if err != nil {
		return fmt.Errorf("kafka stop: %v\n%s", err, tail(out))
	}
	return nil
}

func tail(out []byte) string {
	if len(out) > 2000 {
		return string(out[len(out)-2000:])
	}
	return string(out)
}
