// Package checks holds mcpcheck's rules and the driver that runs them over
// correlated sessions into a Result.
package checks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

// Signal groups rules; the gate selects signals (or single rules).
type Signal uint8

const (
	SignalError Signal = iota
	SignalInvalid
	SignalWarn
	SignalMismatch
	SignalPending
	SignalLateResult
	SignalDrift
	SignalDeprecated
	SignalIncomplete
	SignalSchema
	SignalContract
	SignalSecurity
	numSignals
)

var signalNames = [numSignals]string{
	"error", "invalid", "warn", "mismatch", "pending", "late-result",
	"drift", "deprecated", "incomplete", "schema", "contract", "security",
}

func (s Signal) String() string {
	if s < numSignals {
		return signalNames[s]
	}
	return fmt.Sprintf("signal(%d)", uint8(s))
}

// Signals lists every signal in report order.
func Signals() []Signal {
	out := make([]Signal, numSignals)
	for i := range out {
		out[i] = Signal(i)
	}
	return out
}

// ParseSignal returns the signal called name.
func ParseSignal(name string) (Signal, bool) {
	for i, n := range signalNames {
		if n == name {
			return Signal(i), true
		}
	}
	return 0, false
}

// DefaultGate is the --fail-on default, as in the mcpsnoop proxy's check.
const DefaultGate = "error,invalid,warn"

// Severity is a rule's default level, as SARIF and the catalogue show it.
type Severity uint8

const (
	SeverityError Severity = iota
	SeverityWarning
	SeverityNote
)

func (s Severity) String() string {
	return [...]string{"error", "warning", "note"}[s]
}

// Rule is one check: its metadata and how it looks at a session. A rule
// reports through the Pass it is given; it never prints or decides the exit.
type Rule struct {
	ID        string // stable kebab-case id, never renamed once released
	Title     string // one line
	Doc       string // why it matters, how to fix it, a bad and a good example
	Signal    Signal
	Severity  Severity
	Revisions string // the protocol revisions it judges, for the catalogue

	// Check judges one frame on its own, for rules without state.
	Check FrameFunc
	// Start returns the rule's checker for one session, for rules with
	// state. The checker may implement any of FrameChecker, DamageChecker
	// and EndChecker. A rule with neither Check nor Start is reported by
	// the driver itself (internal-error).
	Start func(s *session.Session) any
}

// FrameChecker sees every frame of a session, correlated.
type FrameChecker interface {
	Frame(p *Pass, f *session.Frame)
}

// DamageChecker sees envelopes that could not be read.
type DamageChecker interface {
	Damage(p *Pass, d session.Damage)
}

// EndChecker runs once after a session's last frame.
type EndChecker interface {
	End(p *Pass, s *session.Session)
}

// FrameFunc is a rule's look at one frame.
type FrameFunc func(p *Pass, f *session.Frame)

var ruleIDPattern = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Validate checks the catalogue: unique kebab-case ids, metadata present, and
// ids that do not collide with signal names (both are --fail-on words).
func Validate(rules []*Rule) error {
	seen := map[string]bool{}
	var problems []string
	for _, r := range rules {
		switch {
		case !ruleIDPattern.MatchString(r.ID):
			problems = append(problems, fmt.Sprintf("rule %q: id is not kebab-case", r.ID))
		case seen[r.ID]:
			problems = append(problems, fmt.Sprintf("rule %q: id used twice", r.ID))
		}
		if sig, clash := ParseSignal(r.ID); clash && sig != r.Signal {
			problems = append(problems, fmt.Sprintf("rule %q: id is also a signal name", r.ID))
		}
		seen[r.ID] = true
		if r.Title == "" || strings.Contains(r.Title, "\n") {
			problems = append(problems, fmt.Sprintf("rule %q: title must be one line", r.ID))
		}
		if r.Doc == "" {
			problems = append(problems, fmt.Sprintf("rule %q: no documentation", r.ID))
		}
		if r.Signal >= numSignals {
			problems = append(problems, fmt.Sprintf("rule %q: unknown signal", r.ID))
		}
		if r.Revisions == "" {
			problems = append(problems, fmt.Sprintf("rule %q: revisions not stated", r.ID))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid rule catalogue:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// Lookup returns the rule with id from rules.
func Lookup(rules []*Rule, id string) *Rule {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}
