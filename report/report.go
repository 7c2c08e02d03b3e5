// Package report renders an evaluated result.Result in the formats CI
// systems read. Every reporter renders the same result; none re-runs a check.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/suggest"
	"github.com/mcpcheck/mcpcheck/result"
)

// writeBufferSize is the buffer of the reports that run to hundreds of
// megabytes: bufio's default 4 KiB makes a write call every 4 KiB.
const writeBufferSize = 64 << 10

// Reporter renders a result to w.
type Reporter interface {
	Report(w io.Writer, r *result.Result) error
}

// CallDrawer is a reporter that draws each session's calls
// (result.SessionResult.Calls), which a run records only when asked.
type CallDrawer interface {
	DrawsCalls() bool
}

// DrawsCalls reports whether rep needs the sessions' calls recorded.
func DrawsCalls(rep Reporter) bool {
	d, ok := rep.(CallDrawer)
	return ok && d.DrawsCalls()
}

// Options are the settings reporters may read.
type Options struct {
	Quiet bool // text: only gated findings and the verdict
	Color bool // text: ANSI colours

	// Verbose (text) lists every finding with its fingerprint and the full
	// counts line; ShowFingerprints adds the fingerprint to each finding
	// line without listing the folded ones.
	Verbose, ShowFingerprints bool
	// ConfigFile is the configuration file the run read, named on the
	// text report's first line; "" for none.
	ConfigFile string
	WorkDir    string // the working directory: relative capture paths start there
	Version    string // mcpcheck's version, for tool metadata

	// SourceRoot is what SARIF and annotation paths are relative to (the
	// repository); empty means WorkDir.
	SourceRoot string
	// SemanticVersion is Version as SemVer (SARIF driver.semanticVersion).
	SemanticVersion string
	// Category is the code-scanning category (SARIF automationDetails.id).
	Category string
	// SARIFGatedOnly leaves out of SARIF the findings that do not fail the
	// gate (notes), so that they do not become code-scanning alerts;
	// suppressed findings stay, so that their alerts close as dismissed.
	SARIFGatedOnly bool

	// StepSummary is the file the github format appends its Markdown
	// summary to ($GITHUB_STEP_SUMMARY); empty means none.
	StepSummary string
}

// Factory builds a reporter for one rendering.
type Factory func(Options) Reporter

var registry = map[string]Factory{}

// Register adds a format. Formats register themselves in init.
func Register(name string, f Factory) {
	if _, dup := registry[name]; dup {
		panic("report: format registered twice: " + name)
	}
	registry[name] = f
}

// Lookup returns the format called name (case-insensitive).
func Lookup(name string) (Factory, error) {
	if f, ok := registry[strings.ToLower(name)]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("unknown format %q%s; valid are %s", name, suggest.DidYouMean(name, Formats()), strings.Join(Formats(), ", "))
}

// Formats lists the registered format names, sorted, text first.
func Formats() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "text") != (names[j] == "text") {
			return names[i] == "text"
		}
		return names[i] < names[j]
	})
	return names
}
