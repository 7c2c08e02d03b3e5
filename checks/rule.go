// Package checks holds mcpcheck's rules and their toolkit: the Rule, Doc
// and Pass API, the catalogue and one file per rule. The engine runs them.
package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/facts"
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
	SignalSuppression
	SignalFlaky
	NumSignals // the number of signals, not one
)

var signalNames = [NumSignals]string{
	"error", "invalid", "warn", "mismatch", "pending", "late-result",
	"drift", "deprecated", "incomplete", "schema", "contract", "security",
	"suppression", "flaky",
}

func (s Signal) String() string {
	if s < NumSignals {
		return signalNames[s]
	}
	return fmt.Sprintf("signal(%d)", uint8(s))
}

// Signals lists every signal in report order.
func Signals() []Signal {
	out := make([]Signal, NumSignals)
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
	Doc       Doc
	Signal    Signal
	Severity  Severity
	Revisions Revisions    // the requests it judges, by their own revision
	Facts     []facts.Fact // the session facts it reads
	Options   []Setting    // the options it reads, for explain and Validate

	// CountsJudged says the rule counts what it judges itself (Pass.Judged);
	// otherwise what it judged is the protocol frames of its revisions it
	// was given (spec §5.2: "judged, none found" versus "not observed").
	CountsJudged bool

	// Sees is the kinds of message whose frames the rule's Frame looks at;
	// zero is every frame. A rule whose Frame returns at once for every
	// other kind says so here, and the engine does not call it for them
	// (it still counts them among the frames the rule was given).
	Sees MessageKinds

	// New returns the rule's checker for one session. Rules that judge each
	// frame on its own use EachFrame, which shares one checker.
	New func() Checker
}

// Checker is a rule's look at one session. Embed Base and override what the
// rule needs: a method with the wrong signature then fails to compile
// instead of never being called.
type Checker interface {
	// Frame sees every correlated frame whose revision the rule judges.
	Frame(p *Pass, f *session.Frame)
	// Damage sees every piece of the capture that could not be read.
	Damage(p *Pass, d session.Damage)
	// End runs once after the session's last frame.
	End(p *Pass)
	base() Base
}

// Base is the no-op Checker every checker embeds.
type Base struct{}

func (Base) Frame(*Pass, *session.Frame)  {}
func (Base) Damage(*Pass, session.Damage) {}
func (Base) End(*Pass)                    {}
func (Base) base() Base                   { return Base{} }

// EachFrame makes a stateless rule's checkers: fn judges each frame on its
// own, and one checker serves every session.
func EachFrame(fn func(p *Pass, f *session.Frame)) func() Checker {
	c := &frameFunc{fn: fn}
	return func() Checker { return c }
}

type frameFunc struct {
	Base
	fn func(p *Pass, f *session.Frame)
}

func (c *frameFunc) Frame(p *Pass, f *session.Frame) { c.fn(p, f) }

// MessageKinds is a set of session.Kind values.
type MessageKinds uint8

// Kinds is the set of the kinds given.
func Kinds(ks ...session.Kind) MessageKinds {
	var m MessageKinds
	for _, k := range ks {
		m |= 1 << k
	}
	return m
}

// Has reports whether a frame of kind k is among m; every kind is among
// the zero set.
func (m MessageKinds) Has(k session.Kind) bool { return m == 0 || m&(1<<k) != 0 }

// Revisions is the range of protocol revisions a rule judges, inclusive and
// compared as dates; an empty bound is open. A request is judged by its own
// revision (its _meta, its MCP-Protocol-Version header, else the session's).
// A frame whose revision is unknown is judged only by rules without a lower
// bound: a rule about what a revision introduced needs the revision shown.
type Revisions struct{ Since, Until string }

// AllRevisions judges every frame.
var AllRevisions = Revisions{}

// Includes reports whether a frame of revision rev is judged.
func (r Revisions) Includes(rev string) bool {
	if rev == "" {
		return r.Since == ""
	}
	return (r.Since == "" || rev >= r.Since) && (r.Until == "" || rev <= r.Until)
}

func (r Revisions) String() string {
	switch {
	case r.Since == "" && r.Until == "":
		return "all"
	case r.Until == "":
		return r.Since + " and later"
	case r.Since == "":
		return r.Until + " and earlier"
	case r.Since == r.Until:
		return r.Since
	}
	return r.Since + " to " + r.Until
}

// Setting describes a rule option for explain and Validate.
type Setting interface {
	OptionName() string
	OptionDoc() string
}

// Option is a typed setting a rule reads through its Pass. The code that
// builds a Config sets it (a flag, a test); otherwise Default holds.
type Option[T any] struct {
	Name    string // kebab-case, unique among the rule's options
	Doc     string
	Default T
}

func (o *Option[T]) OptionName() string { return o.Name }
func (o *Option[T]) OptionDoc() string  { return o.Doc }

// Configurable reports whether the option can be set from the
// configuration file's rules: section: its value is a boolean, a number, a
// string, a list of strings or a duration. Others (a baseline store) are
// set by the code that builds the run.
func (o *Option[T]) Configurable() bool { return optionKind(any(o.Default)) != "" }

// OptionType is the JSON Schema type of the option's values in the
// configuration file ("duration": a string such as 30s); "" when it is not
// Configurable.
func (o *Option[T]) OptionType() string { return optionKind(any(o.Default)) }

// ParseOption decodes a value from the configuration file (JSON).
func (o *Option[T]) ParseOption(raw []byte) (any, error) {
	var v T
	if d, ok := any(&v).(*time.Duration); ok {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("want a duration such as 30s")
		}
		parsed, err := time.ParseDuration(s)
		if err != nil || parsed < 0 {
			return nil, fmt.Errorf("%q is not a duration such as 500ms, 30s or 2m", s)
		}
		*d = parsed
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("want %s", optionKind(any(o.Default)))
	}
	return v, nil
}

// ConfigurableSetting is a Setting the configuration file may set.
type ConfigurableSetting interface {
	Setting
	Configurable() bool
	OptionType() string
	ParseOption(raw []byte) (any, error)
}

func optionKind(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case int, int64:
		return "integer"
	case float64:
		return "number"
	case string:
		return "string"
	case []string:
		return "array"
	case time.Duration:
		return "duration"
	}
	return ""
}

// Set makes v the option's value for runs of cfg (an engine.Config).
func (o *Option[T]) Set(cfg OptionSetter, v T) { cfg.SetOption(o, v) }

// OptionSetter is what options are set on: the configuration of a run.
type OptionSetter interface {
	SetOption(s Setting, v any)
}

// Get returns the option's value for the rule p runs. A rule that reads an
// option it does not declare fails (internal-error), as with facts.
func (o *Option[T]) Get(p *Pass) T {
	if !slices.Contains(p.Rule.Options, Setting(o)) {
		panic(fmt.Sprintf("rule %s reads option %s without declaring it", p.Rule.ID, o.Name))
	}
	if v, ok := p.Reporter.Option(o); ok {
		return v.(T)
	}
	return o.Default
}

var (
	ruleIDPattern  = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	revisionFormat = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	versionFormat  = regexp.MustCompile(`^\d+\.\d+\.\d+$`)
)

// Validate checks the catalogue: unique kebab-case ids that do not collide
// with signal names (both are --fail-on words), complete documentation,
// revisions that are dates, a checker, and declared options with names.
func Validate(rules []*Rule) error {
	seen := map[string]bool{}
	var problems []string
	add := func(r *Rule, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("rule %q: ", r.ID)+fmt.Sprintf(format, args...))
	}
	for _, r := range rules {
		switch {
		case !ruleIDPattern.MatchString(r.ID):
			add(r, "id is not kebab-case")
		case seen[r.ID]:
			add(r, "id used twice")
		}
		if sig, clash := ParseSignal(r.ID); clash && sig != r.Signal {
			add(r, "id is also a signal name")
		}
		seen[r.ID] = true
		d := r.Doc
		if d.Summary == "" || strings.Contains(d.Summary, "\n") {
			add(r, "Doc.Summary must be one line")
		}
		for _, part := range []struct{ name, text string }{{"Why", d.Why}, {"Fix", d.Fix}, {"Bad", d.Bad}, {"Good", d.Good}} {
			if strings.TrimSpace(part.text) == "" {
				add(r, "Doc.%s is empty", part.name)
			}
		}
		if strings.Contains(d.Bad, "\n") || strings.Contains(d.Good, "\n") {
			add(r, "Doc.Bad and Doc.Good are one line each")
		}
		if !versionFormat.MatchString(d.Since) {
			add(r, "Doc.Since %q is not a version like 0.2.0", d.Since)
		}
		for _, b := range []string{r.Revisions.Since, r.Revisions.Until} {
			if b != "" && !revisionFormat.MatchString(b) {
				add(r, "revision bound %q is not a date", b)
			}
		}
		if r.Revisions.Since != "" && r.Revisions.Until != "" && r.Revisions.Since > r.Revisions.Until {
			add(r, "revisions %s: the range is empty", r.Revisions)
		}
		if r.Signal >= NumSignals {
			add(r, "unknown signal")
		}
		if r.New == nil {
			add(r, "no checker (New is nil)")
		}
		for _, s := range d.Spec {
			if s.Revision == "" || s.Section == "" || !strings.HasPrefix(s.URL, "https://") {
				add(r, "Doc.Spec %+v needs a revision, a section and an https link", s)
			}
		}
		names := map[string]bool{}
		for _, o := range r.Options {
			switch {
			case !ruleIDPattern.MatchString(o.OptionName()):
				add(r, "option %q is not kebab-case", o.OptionName())
			case names[o.OptionName()]:
				add(r, "option %q declared twice", o.OptionName())
			case o.OptionDoc() == "":
				add(r, "option %q is not documented", o.OptionName())
			}
			names[o.OptionName()] = true
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid rule catalogue:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// ValidRuleID reports whether id has the form of a rule id (kebab-case).
func ValidRuleID(id string) bool { return ruleIDPattern.MatchString(id) }

// Lookup returns the rule with id from rules.
func Lookup(rules []*Rule, id string) *Rule {
	for _, r := range rules {
		if strings.EqualFold(r.ID, id) { // rule ids are case-insensitive everywhere
			return r
		}
	}
	return nil
}

// Doc is a rule's documentation: one source for explain, the table in docs/rules.md
// and SARIF help.
type Doc struct {
	Summary string // one line: what the rule finds
	Why     string // why it matters (paragraphs)
	Fix     string // how to fix it
	Bad     string // a capture excerpt the rule reports, one line
	Good    string // its corrected form, one line
	Since   string // the mcpcheck version that introduced the rule
	// Spec names the specification sections the rule enforces (spec_refs.go);
	// empty for rules about the capture or the run rather than the protocol.
	Spec []SpecRef
}

// Text renders the documentation as plain text, for explain and SARIF.
func (d Doc) Text() string {
	var b strings.Builder
	for _, p := range paragraphs(d.Why) {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	b.WriteString("Fix: " + strings.Join(paragraphs(d.Fix), " "))
	b.WriteString("\n\nBad:  " + d.Bad + "\nGood: " + d.Good)
	if len(d.Spec) > 0 {
		b.WriteString("\n\nEnforces:")
		for _, s := range d.Spec {
			b.WriteString("\n  " + s.String())
		}
	}
	return b.String()
}

// Markdown renders the documentation for SARIF help: prose escaped and
// unwrapped, the examples verbatim in a fenced code block.
func (d Doc) Markdown() string {
	var blocks []string
	for _, p := range paragraphs(d.Why) {
		blocks = append(blocks, markdownEscape(p))
	}
	blocks = append(blocks, "**Fix:** "+markdownEscape(strings.Join(paragraphs(d.Fix), " ")))
	blocks = append(blocks, codeBlock("Bad:  "+d.Bad, "Good: "+d.Good))
	if len(d.Spec) > 0 {
		var refs []string
		for _, s := range d.Spec {
			refs = append(refs, "- "+markdownEscape(s.Revision+" "+s.Section)+": <"+s.URL+">")
		}
		blocks = append(blocks, "**Enforces:**\n\n"+strings.Join(refs, "\n"))
	}
	return strings.Join(blocks, "\n\n")
}

// FirstParagraph is the opening paragraph of Why on one line.
func (d Doc) FirstParagraph() string {
	if ps := paragraphs(d.Why); len(ps) > 0 {
		return ps[0]
	}
	return d.Summary
}

// paragraphs splits text at blank lines and unwraps each paragraph.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// codeBlock fences lines with more backticks than any run inside them.
func codeBlock(lines ...string) string {
	fence := "```"
	for _, l := range lines {
		for strings.Contains(l, fence) {
			fence += "`"
		}
	}
	return fence + "\n" + strings.Join(lines, "\n") + "\n" + fence
}

// markdownEscaper backslash-escapes the ASCII punctuation Markdown (and
// GitHub's dialect) gives meaning inside a paragraph.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `\<`, `>`, `\>`, `#`, `\#`, `&`, `\&`, `|`, `\|`, `~`, `\~`,
)

// markdownEscape escapes prose for Markdown, including a paragraph start
// that would read as a list item, heading underline or numbered item.
func markdownEscape(s string) string {
	s = markdownEscaper.Replace(s)
	if s != "" && strings.ContainsRune("-+=", rune(s[0])) {
		return `\` + s
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && (s[i] == '.' || s[i] == ')') {
		return s[:i] + `\` + s[i:]
	}
	return s
}
