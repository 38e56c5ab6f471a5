package grouptest

import (
	"fmt"
	"time"
)

// pollEvery is the pause between two looks at a condition.
const pollEvery = 100 * time.Millisecond

// eventually looks at check until it holds or timeout passes; the error says
// what was awaited and the last thing check said.
func eventually(timeout time.Duration, what string, check func() (bool, string)) error {
	deadline := time.Now().Add(timeout)
	last := ""
	for attempt := 0; attempt < int(timeout/pollEvery)+2; attempt++ {
		ok, said := check()
		if ok {
			return nil
		}
		last = said
		if !time.Now().Before(deadline) {
			break
		}
		<-time.After(pollEvery)
	}
	return fmt.Errorf("%s: not within %v (last: %s)", what, timeout, last)
}
