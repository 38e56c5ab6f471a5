package grouptest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// groupPattern is the groups the sidecar tracks: every group of these tests.
const groupPattern = `golang\..*`

// sidecarProcess is one real `lagassign serve` on 127.0.0.1.
type sidecarProcess struct {
	url     string
	command *exec.Cmd
	logPath string
	exited  chan struct{}
}

// startSidecar starts the sidecar on the broker with short refresh and
// advice settings, and waits until /readyz answers 200.
func startSidecar(repo, bootstrap, dir string) (*sidecarProcess, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(strings.ToUpper(kv), "LAGASSIGN_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"LAGASSIGN_HOST=127.0.0.1",
		fmt.Sprintf("LAGASSIGN_PORT=%d", port),
		"LAGASSIGN_BOOTSTRAP_SERVERS="+bootstrap,
		"LAGASSIGN_REFRESH_INTERVAL_S=0.5",
		"LAGASSIGN_GROUP_PATTERN="+groupPattern,
		"LAGASSIGN_ADVICE_MIN_GAIN=0.3",
		"LAGASSIGN_ADVICE_HOLD_S=1",
		"LAGASSIGN_ADVICE_COOLDOWN_S=5",
	)
	logPath := filepath.Join(dir, "lagassign.log")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	command := exec.Command(filepath.Join(repo, ".venv", "bin", "lagassign"), "serve")
	command.Env, command.Stdout, command.Stderr = env, log, log
	if err := command.Start(); err != nil {
		return nil, fmt.Errorf("lagassign serve: %v (is the project installed: make install?)", err)
	}
	s := &sidecarProcess{url: fmt.Sprintf("http://127.0.0.1:%d", port), command: command, logPath: logPath,
		exited: make(chan struct{})}
	go func() { _ = command.Wait(); close(s.exited) }()
	err = eventually(90*time.Second, "lagassign serve ready", func() (bool, string) {
		select {
		case <-s.exited:
			return false, "exited: " + s.logTail()
		default:
		}
		response, err := http.Get(s.url + "/readyz")
		if err != nil {
			return false, err.Error()
		}
		response.Body.Close()
		return response.StatusCode == http.StatusOK, response.Status
	})
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%v\n%s", err, s.logTail())
	}
	return s, nil
}

// stop ends the sidecar by its pid: SIGTERM, then SIGKILL if it lingers.
func (s *sidecarProcess) stop() {
	_ = s.command.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		_ = s.command.Process.Kill()
		<-s.exited
	}
}

func (s *sidecarProcess) logTail() string {
	raw, _ := os.ReadFile(s.logPath)
	return tail(raw)
}

// groupReport is the part of GET /groups/{group} the tests read.
type groupReport struct {
	Partitions []struct {
		Lag *int64 `json:"lag"`
	} `json:"partitions"`
	Members []struct {
		MemberID string `json:"member_id"`
		Lag      *int64 `json:"lag"`
	} `json:"members"`
	LastAnswers []struct {
		MaxLag    *int64 `json:"max_lag"`
		LagSource string `json:"lag_source"`
	} `json:"last_answers"`
	LiveVsLastAnswer struct {
		Status string `json:"status"`
	} `json:"live_vs_last_answer"`
	AssignedBy *struct {
		By     string  `json:"by"`
		Reason *string `json:"reason"`
	} `json:"assigned_by"`
}

// group is the sidecar's report of a group, nil while it does not know it.
func (s *sidecarProcess) group(group string) (*groupReport, error) {
	request, _ := http.NewRequest(http.MethodGet, s.url+"/groups/"+group, nil)
	request.Header.Set("Accept", "application/json")
	response, err := (&http.Client{Timeout: 10 * time.Second}).Do(request)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	if response.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /groups/%s: %s", group, response.Status)
	}
	var report groupReport
	return &report, json.NewDecoder(response.Body).Decode(&report)
}

// totalLag is the lag the sidecar's cached view holds for the group.
func (r *groupReport) totalLag() int64 {
	total := int64(0)
	for _, p := range r.Partitions {
		if p.Lag != nil {
			total += *p.Lag
		}
	}
	return total
}

// freePort is a TCP port free on 127.0.0.1 right now.
func freePort() (int, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer listener.Close()
	return listener.Addr().(*net.TCPAddr).Port, nil
}
