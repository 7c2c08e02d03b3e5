package usage

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/baseline"
)

// Summary is the usage of a whole run: plain data every report renders.
type Summary struct {
	Captures int      `json:"captures"`
	Servers  []Server `json:"servers"`
	// ArgumentHashes is how many (tool, arguments) records were kept to
	// find flaky calls; CapReached says that later ones were not, up to
	// MaxArgumentHashes.
	ArgumentHashes    int  `json:"argument_hashes"`
	MaxArgumentHashes int  `json:"max_argument_hashes"`
	CapReached        bool `json:"argument_hash_cap_reached"`
	// SessionsPastLabelCap counts the sessions whose server label came
	// after MaxLabels others: checked, but their usage not followed.
	MaxLabels            int `json:"max_labels"`
	SessionsPastLabelCap int `json:"sessions_past_label_cap"`
}

// LabelCapNote says what a run past the label cap did not follow; empty
// for a run within it.
func (s *Summary) LabelCapNote() string {
	if s.SessionsPastLabelCap == 0 {
		return ""
	}
	return fmt.Sprintf("%d server labels followed, the most a run keeps: the usage and coverage of %d sessions under later labels were not followed", s.MaxLabels, s.SessionsPastLabelCap)
}

// Server is one server label's usage across the run.
type Server struct {
	Label     string   `json:"label"`
	Sessions  int      `json:"sessions"`
	Tools     Coverage `json:"tools"`
	Prompts   Coverage `json:"prompts"`
	Resources Coverage `json:"resources"`
	// Templates are the resource templates listed; a resources/read of a
	// URI a template expands to counts as a call of it.
	Templates Coverage `json:"resource_templates"`
	ToolStats []Tool   `json:"tool_stats"`
	Flaky     []Flaky  `json:"flaky"`

	// Definitions is the latest complete tool listing, for comparing runs;
	// not part of the report.
	Definitions *baseline.Definitions `json:"-"`
	outcomes    []Outcome
}

// Coverage is what a server advertised and what the run used of it. A
// call counts as successful when it has no JSON-RPC error, no isError and
// no HTTP error.
type Coverage struct {
	// Listed says whether any session recorded a complete listing.
	Listed      bool     `json:"listed"`
	Advertised  int      `json:"advertised"`
	Called      int      `json:"called"`    // advertised and called (any outcome)
	Succeeded   int      `json:"succeeded"` // advertised and called successfully at least once
	NeverCalled []string `json:"never_called"`
	// FailedOnly are advertised names every call of which failed.
	FailedOnly []string `json:"failed_only"`
	// Unlisted are names called that no listing advertised.
	Unlisted []string `json:"unlisted"`
}

func (cv *Coverage) count(name string, it *item) {
	switch {
	case !it.advertised:
		if it.calls > 0 {
			cv.Unlisted = append(cv.Unlisted, name)
		}
		return
	case it.calls == 0:
		cv.NeverCalled = append(cv.NeverCalled, name)
	case it.ok == 0:
		cv.FailedOnly = append(cv.FailedOnly, name)
	}
	cv.Advertised++
	if it.calls > 0 {
		cv.Called++
	}
	if it.ok > 0 {
		cv.Succeeded++
	}
}

// done makes the lists non-nil, for JSON.
func (cv Coverage) done() Coverage {
	for _, l := range []*[]string{&cv.NeverCalled, &cv.FailedOnly, &cv.Unlisted} {
		if *l == nil {
			*l = []string{}
		}
	}
	return cv
}

// Percent is the share of advertised names called successfully; 100 when
// nothing was advertised.
func (cv Coverage) Percent() float64 {
	if cv.Advertised == 0 {
		return 100
	}
	return 100 * float64(cv.Succeeded) / float64(cv.Advertised)
}

// Tool is one tool's statistics across the run.
type Tool struct {
	Name       string           `json:"name"`
	Advertised bool             `json:"advertised"`
	Calls      int64            `json:"calls"`
	OK         int64            `json:"ok"`
	Errors     map[string]int64 `json:"errors"` // by kind: tool-error, jsonrpc-error, http-error, cancelled, unanswered
	ErrorRate  float64          `json:"error_rate"`
	// Latency is from the request to the final answer (a whole multi
	// round-trip chain with the client's turnaround); ServerLatency, when
	// some calls took several round trips, counts only the server's share.
	Latency       Latency  `json:"latency"`
	ServerLatency *Latency `json:"server_latency,omitempty"`
	Chains        int64    `json:"multi_round_trip_calls"`
	Captures      int      `json:"captures"` // captures it was called in
	// Declared are the input properties of its latest listing; Passed the
	// argument names ever passed, NeverPassed the declared ones never.
	Declared    []string `json:"declared_properties"`
	Passed      []string `json:"passed_properties"`
	NeverPassed []string `json:"never_passed_properties"`
}

// Flaky is a tool called with identical arguments that succeeded in one
// capture and failed in another.
type Flaky struct {
	Tool          string   `json:"tool"`
	ArgsHash      string   `json:"arguments_hash"`
	FailKind      string   `json:"fail_kind"`
	OKAt          Location `json:"succeeded_at"`
	FailedAt      Location `json:"failed_at"`
	FailedSession string   `json:"failed_session"`
}

// Outcome is what became of a tool with one set of arguments in a run.
type Outcome struct {
	Tool     string
	Args     uint64
	OK       bool
	Failed   bool
	FailKind string
}

// Outcomes lists the server's remembered outcomes, by tool and hash.
func (s *Server) Outcomes() []Outcome { return s.outcomes }

// Server returns the server called label, or nil.
func (s *Summary) Server(label string) *Server {
	if s == nil {
		return nil
	}
	for i := range s.Servers {
		if s.Servers[i].Label == label {
			return &s.Servers[i]
		}
	}
	return nil
}

// Line is the one-line coverage of a server, as text reports show it.
func (s *Server) Line() string {
	label := labelOf(s.Label)
	var b strings.Builder
	fmt.Fprintf(&b, "coverage %s: ", label)
	if !s.Tools.Listed {
		b.WriteString("tools not listed")
	} else {
		fmt.Fprintf(&b, "tools %d/%d called successfully (%.0f%%)", s.Tools.Succeeded, s.Tools.Advertised, s.Tools.Percent())
		if n := len(s.Tools.NeverCalled); n > 0 {
			fmt.Fprintf(&b, ", never called: %s", names(s.Tools.NeverCalled, 8))
		}
		if n := len(s.Tools.FailedOnly); n > 0 {
			fmt.Fprintf(&b, ", only failed: %s", names(s.Tools.FailedOnly, 8))
		}
	}
	if s.Prompts.Listed {
		fmt.Fprintf(&b, "; prompts %d/%d", s.Prompts.Succeeded, s.Prompts.Advertised)
	}
	if s.Resources.Listed {
		fmt.Fprintf(&b, "; resources %d/%d", s.Resources.Succeeded, s.Resources.Advertised)
	}
	if s.Templates.Listed {
		fmt.Fprintf(&b, "; resource templates %d/%d", s.Templates.Succeeded, s.Templates.Advertised)
	}
	if n := len(s.Tools.Unlisted); n > 0 {
		fmt.Fprintf(&b, "; called but not listed: %s", names(s.Tools.Unlisted, 8))
	}
	return b.String()
}

// names joins up to max names and says how many more there are.
func names(list []string, max int) string {
	if len(list) <= max {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:max], ", "), len(list)-max)
}
