package report

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

// What a rule made of a run (spec §5.2).
const (
	StatusFindings    = "findings"
	StatusNoneFound   = "judged, none found"
	StatusNotObserved = "not observed" // nothing to judge: not this transport, revision or exchange
	StatusNotRun      = "not run"      // disabled
)

// RuleState is one rule's outcome over the run.
type RuleState struct {
	Rule     *checks.Rule
	Findings int   // findings counted (suppressed and existing ones included)
	Gated    int   // findings that fail the gate
	Judged   int64 // frames or exchanges judged
	Status   string
}

// RuleStates lists every catalogued rule's outcome, in catalogue order. A
// result made without judged counts (by hand) says findings or none found.
func RuleStates(r *result.Result) []RuleState {
	found, gated := map[string]int{}, map[string]int{}
	for s := range r.AllSessions() {
		for _, f := range s.Findings {
			found[f.Rule] += 1 + f.Also
			if f.Gated {
				gated[f.Rule] += 1 + f.Also
			}
		}
	}
	var out []RuleState
	for _, rule := range r.Rules {
		st := RuleState{Rule: rule, Findings: found[rule.ID], Gated: gated[rule.ID]}
		n, ran := r.Judged[rule.ID]
		st.Judged = n
		switch {
		case st.Findings > 0:
			st.Status = StatusFindings
		case r.Judged == nil:
			st.Status = StatusNoneFound
		case !ran:
			st.Status = StatusNotRun
		case n == 0:
			st.Status = StatusNotObserved
		default:
			st.Status = StatusNoneFound
		}
		out = append(out, st)
	}
	return out
}

// UnjudgedGated names the gated signals none of whose rules judged
// anything in the run: a pass there says nothing.
func UnjudgedGated(r *result.Result) []string {
	if r.Judged == nil {
		return nil
	}
	var judged, ran [checks.NumSignals]bool
	for _, rule := range r.Rules {
		if n, ok := r.Judged[rule.ID]; ok {
			ran[rule.Signal] = true
			judged[rule.Signal] = judged[rule.Signal] || n > 0
		}
	}
	var out []string
	for _, sig := range checks.Signals() {
		if r.Gate.SelectsSignal(sig) && ran[sig] && !judged[sig] {
			out = append(out, fmt.Sprintf("gated signal %s judged nothing in this run (not observed): its pass says nothing", sig))
		}
	}
	return out
}
