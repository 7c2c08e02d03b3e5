package report

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

func init() { Register("sarif", func(o Options) Reporter { return &SARIF{opts: o} }) }

// MaxSARIFResults caps the results of one SARIF log: code scanning ignores
// results past this many per run (and rejects uploads past 25,000). Capping
// here decides which are kept: the gated findings. Text, JSON and JUnit are
// never capped.
const MaxSARIFResults = 5000

const (
	sarifSchemaURI      = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifInformationURI = "https://github.com/mcpcheck/mcpcheck"

	// sarifTruncatedRuleID names the result that stands for the findings left
	// out by the cap. It is always in driver.rules, so that the rule list
	// is the same in every run whether or not a run was truncated.
	sarifTruncatedRuleID = "report-truncated"
)

// sarifSrcRoot is the base every capture URI inside the source root is
// relative to, declared in run.originalUriBaseIds.
const sarifSrcRoot = "%SRCROOT%"

// SARIF renders a SARIF 2.1.0 log for code scanning.
type SARIF struct {
	opts  Options
	place *placer
}

// Report writes the log: the tool and the run are built in memory, the
// results are converted and written one at a time where the run's empty
// results array stands (the cap bounds them, but a result is far larger in
// go-sarif's types than in the file).
func (s *SARIF) Report(w io.Writer, r *result.Result) error {
	s.place = newPlacer(s.opts)
	log, index := s.build(r)
	var buf bytes.Buffer
	encode := func(prefix string, v any) ([]byte, error) { return sarifEncode(&buf, prefix, v) }
	doc, err := encode("", log)
	if err != nil {
		return err
	}
	// The only unescaped "results": [] of the document is the run's own
	// (capture text inside strings has its quotes escaped).
	const empty = `"results": []`
	at := bytes.Index(doc, []byte(empty))
	if at < 0 || bytes.Count(doc, []byte(empty)) != 1 {
		return fmt.Errorf("sarif: the run's results have no place in the log")
	}
	indent := string(doc[bytes.LastIndexByte(doc[:at], '\n')+1 : at])
	bw := bufio.NewWriter(w)
	bw.Write(doc[:at+len(empty)-1])
	tail := append([]byte(nil), doc[at+len(empty)-1:]...)
	n := 0
	var own []byte
	for res := range s.results(r, index) {
		if n > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n" + indent + "  ")
		out, ok := sarifResultJSON(own[:0], res, indent+"  ")
		if own = out; ok {
			out = jsonSafe(out)
		} else if out, err = encode(indent+"  ", res); err != nil {
			return err
		}
		bw.Write(bytes.TrimSuffix(out, []byte("\n")))
		n++
	}
	if n > 0 {
		bw.WriteString("\n" + indent)
	}
	bw.Write(tail)
	return bw.Flush()
}

// sarifEncode is v as the log writes it: go-sarif's own writers escape
// HTML and its WriteFile does not truncate, so it is encoded here, indented
// under prefix for reviewable golden files, in buf.
func sarifEncode(buf *bytes.Buffer, prefix string, v any) ([]byte, error) {
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("sarif: %w", err)
	}
	return jsonSafe(buf.Bytes()), nil
}

// build assembles the log in memory but for its results, which it leaves
// empty, and returns the index of each rule's descriptor.
func (s *SARIF) build(r *result.Result) (*sarif.Report, map[string]int) {
	driver := &sarif.ToolComponent{
		Name:           "mcpcheck",
		InformationURI: sarifPtr(sarifInformationURI),
		Rules:          sarifRules(r.Rules, sarifDocRef(s.opts.SemanticVersion)),
	}
	// SARIF viewers compare versions that start with a number: the SemVer
	// form serves as both.
	switch {
	case s.opts.SemanticVersion != "":
		driver.Version = sarifPtr(s.opts.SemanticVersion)
		driver.SemanticVersion = sarifPtr(s.opts.SemanticVersion)
	case s.opts.Version != "":
		driver.Version = sarifPtr(s.opts.Version)
	}
	index := make(map[string]int, len(driver.Rules))
	for i, d := range driver.Rules {
		index[d.ID] = i
	}

	run := sarif.NewRun(sarif.Tool{Driver: driver}) // Results starts as [], never null
	inv := &sarif.Invocation{
		ExecutionSuccessful: sarifPtr(true), // the gate failing is a verdict, not a failed run
		ExitCode:            sarifPtr(r.ExitCode),
	}
	if filepath.IsAbs(s.opts.WorkDir) {
		inv.WorkingDirectory = sarif.NewSimpleArtifactLocation(fileURI(s.opts.WorkDir, true))
	}
	run.Invocations = []*sarif.Invocation{inv}
	if s.place.root != "" && filepath.IsAbs(s.place.root) {
		run.OriginalUriBaseIDs = map[string]*sarif.ArtifactLocation{
			sarifSrcRoot: sarif.NewSimpleArtifactLocation(fileURI(s.place.root, true)),
		}
	}
	run.AutomationDetails = sarif.NewRunAutomationDetails().WithID(AutomationID(s.opts.Category))

	return &sarif.Report{
		Version: string(sarif.Version210),
		Schema:  sarifSchemaURI,
		Runs:    []*sarif.Run{run},
	}, index
}

// results converts the findings, gated first, within MaxSARIFResults.
func (s *SARIF) results(r *result.Result, index map[string]int) iter.Seq[*sarif.Result] {
	return func(yield func(*sarif.Result) bool) {
		total := r.NumFindings()
		if s.opts.SARIFGatedOnly {
			total = 0
			for f := range r.GatedFirst() {
				if s.lists(f) {
					total++
				}
			}
		}
		keep := total
		if keep > MaxSARIFResults {
			keep = MaxSARIFResults - 1 // room for the truncation notice
		}
		n := 0
		for f := range r.GatedFirst() {
			if n == keep {
				break
			}
			if !s.lists(f) {
				continue
			}
			n++
			if !yield(s.result(f, index, r.NewFrom != "")) {
				return
			}
		}
		if left := total - keep; left > 0 {
			res := sarifTruncatedResult(left, total, index)
			// Code scanning refuses a whole upload that holds a result
			// without a location: the notice points at the first capture.
			if len(r.Files) > 0 {
				res.Locations = []*sarif.Location{s.location(r.Files[0], 1)}
			}
			yield(res)
		}
	}
}

// lists reports whether the log has a result for f: every finding, or
// with SARIFGatedOnly those that fail the gate and the suppressed ones
// (whose result closes an alert as dismissed, not as fixed).
func (s *SARIF) lists(f *result.Finding) bool {
	return !s.opts.SARIFGatedOnly || f.Gated || f.Suppressed != nil
}

func (s *SARIF) result(f *result.Finding, index map[string]int, newFrom bool) *sarif.Result {
	res := sarif.NewRuleResult(f.Rule).
		WithLevel(f.Level()).
		WithMessage(sarif.NewTextMessage(printable(f.Message))).
		// A fresh map: go-sarif's SetPartialFingerPrint writes to a nil one.
		WithPartialFingerPrints(map[string]any{"primaryLocationLineHash": f.Fingerprint})
	if i, ok := index[f.Rule]; ok {
		res.WithRuleIndex(i)
	}
	res.Locations = []*sarif.Location{s.location(f.File, f.Line)}
	for _, rel := range f.Related {
		res.AddRelatedLocation(s.location(rel.File, rel.Line).WithMessage(sarif.NewTextMessage(printable(rel.Message))))
	}
	if c := f.CausedBy; c != nil {
		res.AddRelatedLocation(s.location(c.File, c.Line).WithMessage(sarif.NewTextMessage(printable(c.String() + " (" + c.Rule + ")"))))
	}
	res.Properties = sarifResultProperties(f)
	if newFrom { // --new-from: SARIF's own word for what the earlier run had
		state := "new"
		if f.Existing {
			state = "unchanged"
		}
		res.WithBaselineState(state)
	}
	if f.Suppressed != nil {
		res.Suppressions = []*sarif.Suppression{s.suppression(f.Suppressed)}
	}
	return res
}

// suppression is a suppressions entry as SARIF records it: kept outside the
// capture (external), accepted, with its reason. go-sarif writes null for
// every member left unset, which the schema refuses, so all are set: the
// location is the entry in the suppressions file, the guid a name-based
// UUID of the fingerprint, or of a scoped entry's rule and label (the same
// in every run).
func (s *SARIF) suppression(e *suppress.Suppression) *sarif.Suppression {
	sup := sarif.NewSuppression("external").WithStatus("accepted").WithJustifcation(printable(e.Reason)).
		WithGuid(sarifGUID("suppression " + e.Key())).WithLocation(s.location(e.File, e.Line))
	if e.Expires != "" {
		sup.Properties = sarif.Properties{"expires": e.Expires}
	}
	return sup
}

// sarifGUID is the RFC 9562 version 5 UUID of name in the URL namespace,
// qualified by mcpcheck's address.
func sarifGUID(name string) string {
	ns := [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(sarifInformationURI + "#" + name))
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// sarifResultProperties carries what SARIF has no field for; json sorts the keys.
func sarifResultProperties(f *result.Finding) sarif.Properties {
	p := sarif.Properties{"signal": f.Signal.String()}
	if f.Session != "" {
		p["session"] = printable(f.Session)
	}
	if f.Subject != "" {
		p["subject"] = printable(f.Subject)
	}
	if f.Seq > 0 {
		p["seq"] = f.Seq
	}
	if f.Drift != nil {
		sarifDriftProperties(p, f.Drift)
	}
	return p
}

// sarifTruncatedResult stands for the findings the cap left out.
func sarifTruncatedResult(left, total int, index map[string]int) *sarif.Result {
	msg := fmt.Sprintf("%d of %d findings were left out of this SARIF log, which is capped at %d results (gated findings first); the text, json and junit formats list all of them.",
		left, total, MaxSARIFResults)
	return sarif.NewRuleResult(sarifTruncatedRuleID).
		WithRuleIndex(index[sarifTruncatedRuleID]).
		WithLevel("warning").
		WithMessage(sarif.NewTextMessage(msg)).
		WithPartialFingerPrints(map[string]any{"primaryLocationLineHash": "mcpcheck/" + sarifTruncatedRuleID})
}

// location is a place in a capture: its URI relative to the source root
// (%SRCROOT%), else an absolute file:// URI, and the envelope's line as a
// whole-line region. A finding that belongs to no line points at line 1, so
// that every result can be placed.
func (s *SARIF) location(file string, line int) *sarif.Location {
	pl := s.place.at(file)
	var art *sarif.ArtifactLocation
	switch {
	case pl.rel == "" && pl.abs == "":
		return sarif.NewLocation() // no file: nothing to place (the CLI always names one)
	case pl.rel != "" && s.place.root != "":
		art = sarif.NewSimpleArtifactLocation(relativeURI(pl.rel)).WithUriBaseId(sarifSrcRoot)
	case pl.rel != "":
		art = sarif.NewSimpleArtifactLocation(relativeURI(pl.rel))
	default:
		art = sarif.NewSimpleArtifactLocation(fileURI(pl.abs, false))
	}
	line = max(line, 1)
	region := sarif.NewRegion().WithStartLine(line).WithStartColumn(1).WithEndLine(line)
	return sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().WithArtifactLocation(art).WithRegion(region))
}

// AutomationID is the run's automationDetails.id: code scanning keeps one
// analysis per id and commit, so each --category gets its own.
func AutomationID(category string) string {
	if category == "" {
		return "mcpcheck/"
	}
	return "mcpcheck/" + category + "/"
}

// sarifDocBase is where each rule's documentation lives; an anchor per rule.
const sarifDocBase = sarifInformationURI + "/blob/"

// sarifDocRef is the git ref the documentation links point at: the release
// tag for a release, else main.
func sarifDocRef(semver string) string {
	if semver == "" || strings.Contains(semver, "-") || strings.Contains(semver, "+") {
		return "main"
	}
	return "v" + semver
}

// SARIFHelpURI is the address of a rule's documentation (docs/rules.md,
// generated from the catalogue, one heading per rule id).
func SARIFHelpURI(ref, id string) string {
	return sarifDocBase + ref + "/docs/rules.md#" + id
}

// sarifRules is the reporting descriptor of every rule, in catalogue order,
// then the truncation notice's.
func sarifRules(rules []*checks.Rule, docRef string) []*sarif.ReportingDescriptor {
	out := make([]*sarif.ReportingDescriptor, 0, len(rules)+1)
	for _, r := range rules {
		out = append(out, sarifRule(r, docRef))
	}
	if checks.Lookup(rules, sarifTruncatedRuleID) == nil {
		out = append(out, sarifTruncatedRule(docRef))
	}
	return out
}

func sarifRule(r *checks.Rule, docRef string) *sarif.ReportingDescriptor {
	d := sarif.NewRule(r.ID).
		WithName(sarifRuleName(r.ID)).
		WithHelpURI(SARIFHelpURI(docRef, r.ID)).
		WithShortDescription(sarif.NewMultiformatMessageString(r.Doc.Summary)).
		WithFullDescription(sarif.NewMultiformatMessageString(r.Doc.FirstParagraph())).
		WithHelp(sarif.NewMultiformatMessageString(r.Doc.Text()).WithMarkdown(r.Doc.Markdown()))
	d.DefaultConfiguration = sarif.NewReportingConfiguration().WithLevel(r.Severity.String())
	// The descriptor's own Properties field shadows the embedded bag's.
	d.Properties = sarifRuleProperties(r)
	return d
}

// sarifRuleProperties tags a rule with its signal; code scanning ranks security
// alerts by security-severity.
func sarifRuleProperties(r *checks.Rule) sarif.Properties {
	tags := []string{r.Signal.String()}
	if r.Signal != checks.SignalSecurity {
		return sarif.Properties{"tags": tags}
	}
	if tags[0] != "security" { // tags must be distinct
		tags = append(tags, "security")
	}
	return sarif.Properties{"tags": tags, "security-severity": sarifSecuritySeverity(r.Severity)}
}

// sarifSecuritySeverity maps onto code scanning's bands: high, medium, low.
func sarifSecuritySeverity(s checks.Severity) string {
	switch s {
	case checks.SeverityError:
		return "8.0"
	case checks.SeverityWarning:
		return "5.0"
	default:
		return "2.0"
	}
}

// TruncatedRuleDoc is the id and documentation of the result that stands
// for the findings the cap left out; it is no rule of the catalogue.
func TruncatedRuleDoc() (string, checks.Doc) {
	return sarifTruncatedRuleID, checks.Doc{
		Summary: "The SARIF log was capped; some findings are not in it",
		Why:     fmt.Sprintf("A SARIF log from mcpcheck holds at most %d results, because code scanning ignores any more in a run. When a run has more findings, the gated ones come first and a final report-truncated result says how many were left out.", MaxSARIFResults),
		Fix:     "Use the text, json or junit format to see every finding, or fix the most frequent findings first.",
		Bad:     fmt.Sprintf("a run with %d findings", MaxSARIFResults+1),
		Good:    "a run whose findings fit in one SARIF log",
	}
}

func sarifTruncatedRule(docRef string) *sarif.ReportingDescriptor {
	_, doc := TruncatedRuleDoc()
	d := sarif.NewRule(sarifTruncatedRuleID).
		WithName(sarifRuleName(sarifTruncatedRuleID)).
		WithHelpURI(SARIFHelpURI(docRef, sarifTruncatedRuleID)).
		WithShortDescription(sarif.NewMultiformatMessageString(doc.Summary)).
		WithFullDescription(sarif.NewMultiformatMessageString(doc.FirstParagraph())).
		WithHelp(sarif.NewMultiformatMessageString(doc.Why + "\n\nFix: " + doc.Fix).WithMarkdown(doc.Why + "\n\n**Fix:** " + doc.Fix))
	d.DefaultConfiguration = sarif.NewReportingConfiguration().WithLevel("warning")
	d.Properties = sarif.Properties{"tags": []string{"mcpcheck"}}
	return d
}

// sarifRuleName turns a kebab-case rule id into the rule's SARIF name:
// jsonrpc-error becomes JsonrpcError. SARIF wants a name that differs from
// the id (viewers compare them ignoring case), so a one-word id gets a
// suffix: cancel becomes CancelRule.
func sarifRuleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(part[1:])
	}
	if strings.EqualFold(b.String(), id) {
		b.WriteString("Rule")
	}
	return b.String()
}

func sarifPtr[T any](v T) *T { return &v }
