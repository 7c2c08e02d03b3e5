package result

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/suggest"
)

// Gate is the --fail-on selection: signals and single rules whose findings
// fail the check. It never changes which findings exist.
type Gate struct {
	signals [checks.NumSignals]bool
	rules   map[string]bool
	entries []string // as given, normalised, for messages
}

// ParseGate parses a --fail-on list against the rule catalogue. "none"
// selects nothing, "all" every signal. An unknown entry is an error that lists the valid names.
func ParseGate(list string, rules []*checks.Rule) (Gate, error) {
	g := Gate{rules: map[string]bool{}}
	var unknown []string
	for _, e := range strings.Split(list, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
			continue
		case e == "none":
			g.entries = append(g.entries, e)
			continue
		case e == "all":
			for i := range g.signals {
				g.signals[i] = true
			}
			g.entries = append(g.entries, e)
			continue
		}
		if s, ok := checks.ParseSignal(e); ok {
			g.signals[s] = true
		} else if checks.Lookup(rules, e) != nil {
			g.rules[e] = true
		} else {
			unknown = append(unknown, e)
			continue
		}
		g.entries = append(g.entries, e)
	}
	if len(g.entries) == 0 && len(unknown) == 0 {
		// An empty value (often an unset CI variable) must not turn the gate off.
		return Gate{}, fmt.Errorf("--fail-on is empty; name signals or rule ids, or none to report only")
	}
	if len(unknown) > 0 {
		// Each unknown entry with the name it is probably a slip of; the
		// signals listed, the rule ids left to 'mcpcheck rules' (there are
		// sixty of them).
		names := append(append([]string{"none", "all"}, signalNames()...), ruleIDs(rules)...)
		shown := quoteAll(unknown)
		for i, e := range unknown {
			shown[i] += suggest.DidYouMean(e, names)
		}
		return Gate{}, fmt.Errorf("--fail-on: unknown %s %s; valid are none, all, the signals %s, or a rule id ('mcpcheck rules' lists them)",
			plural(len(unknown), "entry", "entries"), strings.Join(shown, ", "), strings.Join(signalNames(), ", "))
	}
	if slices.Contains(g.entries, "none") && len(g.entries) > 1 {
		return Gate{}, fmt.Errorf("--fail-on: none cannot be combined with other entries")
	}
	return g, nil
}

// Selects reports whether findings of rule r fail the gate.
func (g Gate) Selects(r *checks.Rule) bool {
	return g.signals[r.Signal] || g.rules[r.ID]
}

// RuleIDs lists the rule ids the selection names on their own, sorted.
func (g Gate) RuleIDs() []string {
	return slices.Sorted(maps.Keys(g.rules))
}

// SelectsSignal reports whether the whole signal s is gated.
func (g Gate) SelectsSignal(s checks.Signal) bool { return g.signals[s] }

// String is the selection as a --fail-on value.
func (g Gate) String() string {
	if len(g.entries) == 0 {
		return "none"
	}
	return strings.Join(g.entries, ",")
}

func signalNames() []string {
	var names []string
	for _, s := range checks.Signals() {
		names = append(names, s.String())
	}
	return names
}

func ruleIDs(rules []*checks.Rule) []string {
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return ids
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
