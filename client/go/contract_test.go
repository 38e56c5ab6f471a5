package lagassign

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// contractDir holds the wire contract's answer cases, shared by every side
// (contract/README.md at the top of the repository).
const contractDir = "../../contract/answers"

type contractCase struct {
	Request struct {
		GroupID       string     `json:"group_id"`
		Protocol      string     `json:"protocol"`
		Subscriptions [][]string `json:"subscriptions"`
		Members       []struct {
			MemberID     string             `json:"member_id"`
			Topics       []string           `json:"topics"`
			Subscription *int               `json:"subscription"`
			Owned        map[string][]int32 `json:"owned"`
			Generation   *int32             `json:"generation"`
		} `json:"members"`
		Partitions map[string]int32 `json:"partitions"`
	} `json:"request"`
	Answer     json.RawMessage               `json:"answer"`
	Assignment map[string]map[string][]int32 `json:"assignment"`
	Why        string                        `json:"why"`
}

// contractCases reads every case of kind (valid or invalid), by file name.
func contractCases(t *testing.T, kind string) map[string]contractCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(contractDir, kind, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no contract cases in %s/%s: %v", contractDir, kind, err)
	}
	cases := map[string]contractCase{}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var c contractCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cases[filepath.Base(path)] = c
	}
	return cases
}

// contractView is the leader's view of the group a contract request was made
// for, as franz-go hands the balancer its members.
func contractView(t *testing.T, c contractCase) *groupView {
	t.Helper()
	var joined []kmsg.JoinGroupResponseMember
	var metas []kmsg.ConsumerMemberMetadata
	for _, m := range c.Request.Members {
		topics := m.Topics
		if m.Subscription != nil {
			topics = c.Request.Subscriptions[*m.Subscription]
		}
		meta := kmsg.ConsumerMemberMetadata{Topics: topics, Generation: -1}
		if m.Generation != nil {
			meta.Generation = *m.Generation
		}
		for _, topic := range sortedKeys(m.Owned) {
			meta.OwnedPartitions = append(meta.OwnedPartitions,
				kmsg.ConsumerMemberMetadataOwnedPartition{Topic: topic, Partitions: m.Owned[topic]})
		}
		joined = append(joined, kmsg.JoinGroupResponseMember{MemberID: m.MemberID})
		metas = append(metas, meta)
	}
	view, err := newGroupView(c.Request.GroupID, joined, metas, c.Request.Partitions, c.Request.Protocol == "cooperative")
	if err != nil {
		t.Fatal(err)
	}
	return view
}

func TestEveryValidContractAnswerReadsAsItsAssignment(t *testing.T) {
	for name, c := range contractCases(t, "valid") {
		t.Run(name, func(t *testing.T) {
			got, err := readAnswer(c.Answer, contractView(t, c))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.assignment.asMap(), c.Assignment) {
				t.Fatalf("read %v, want %v", got.assignment.asMap(), c.Assignment)
			}
		})
	}
}

func TestEveryInvalidContractAnswerIsRefused(t *testing.T) {
	for name, c := range contractCases(t, "invalid") {
		t.Run(name, func(t *testing.T) {
			_, err := readAnswer(c.Answer, contractView(t, c))
			var why *fallbackError
			if !errors.As(err, &why) || (why.reason != ReasonMalformed && why.reason != ReasonInvalid) {
				t.Fatalf("%s: read with %v, want it refused as malformed or invalid", c.Why, err)
			}
		})
	}
}
