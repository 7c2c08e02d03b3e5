package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func init() { Register("codeclimate", func(o Options) Reporter { return &CodeClimate{opts: o} }) }

// CodeClimate renders GitLab's Code Quality report (spec §7.7): a JSON
// array of Code Climate issues, which GitLab shows in the merge-request
// widget on every tier. It streams one issue at a time, like JSON, and is
// never capped.
type CodeClimate struct{ opts Options }

// CodeClimateIssue is one issue as GitLab reads it; every field is one
// GitLab requires (docs.gitlab.com, "Code Quality report format").
type CodeClimateIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    CodeClimateLocation `json:"location"`
}

// CodeClimateLocation places an issue: a path relative to the repository
// and the line it starts on.
type CodeClimateLocation struct {
	Path  string           `json:"path"`
	Lines CodeClimateLines `json:"lines"`
}

// CodeClimateLines is the first line of an issue (1-based).
type CodeClimateLines struct {
	Begin int `json:"begin"`
}

// Report writes the array, gated issues first. Suppressed findings are
// left out: an accepted finding is not a code-quality issue, and the
// widget has no way to show one as accepted (SARIF and JSON keep them).
func (c *CodeClimate) Report(w io.Writer, r *result.Result) error {
	place := newPlacer(c.opts)
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	n := 0
	for f := range r.GatedFirst() {
		if f.Suppressed != nil {
			continue
		}
		buf.Reset()
		if err := enc.Encode(c.issue(f, place)); err != nil {
			return fmt.Errorf("codeclimate: %w", err)
		}
		if n > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		bw.Write(jsonSafe(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
		n++
	}
	if n > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("]\n")
	if err := r.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

func (c *CodeClimate) issue(f *result.Finding, place *placer) CodeClimateIssue {
	msg := printable(f.Message)
	if f.Also > 0 {
		msg += " (and " + strconv.Itoa(f.Also) + " more like it)"
	}
	line := f.Line
	if line < 1 {
		line = 1 // a finding of a whole session: GitLab needs a line
	}
	pl := place.at(f.File)
	path := pl.rel
	if path == "" {
		path = pl.abs // outside the repository: GitLab cannot link it, a reader can still find it
	}
	if path == "" {
		path = placeName(f.File)
	}
	return CodeClimateIssue{
		Description: msg,
		CheckName:   f.Rule,
		Fingerprint: f.Fingerprint,
		Severity:    CodeClimateSeverity(f),
		Location:    CodeClimateLocation{Path: path, Lines: CodeClimateLines{Begin: line}},
	}
}

// CodeClimateSeverity maps a finding onto GitLab's scale: a gated error is
// critical (major when the rule itself rates it below error, as a gated
// warning), a finding that does not fail the gate is minor when the rule
// rates it a warning or error, info when a note.
func CodeClimateSeverity(f *result.Finding) string {
	switch {
	case f.Gated && f.Severity == checks.SeverityError:
		return "critical"
	case f.Gated:
		return "major"
	case f.Severity == checks.SeverityNote:
		return "info"
	}
	return "minor"
}
