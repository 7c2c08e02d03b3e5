package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/secrets"
)

// Suppression is one entry of a suppressions file: a finding, named by its
// fingerprint, that a team accepted for a reason, until an optional date.
type Suppression struct {
	Fingerprint string
	Reason      string
	Expires     string // YYYY-MM-DD: the last day it holds, UTC; "" never expires

	// What the finding was when it was accepted, so that a reviewer
	// recognises it in a diff; any of them may be empty.
	Rule, Label, Subject, Message string

	// Where the entry is, for findings about it.
	File string
	Line int
}

// Suppressions is a suppressions file (spec §5.1).
type Suppressions struct {
	File    string // as reports name it
	Entries []*Suppression

	// Now decides which entries have expired; the zero value is the time
	// of the run. Tests set it.
	Now time.Time
}

// SuppressionsVersion is the version of the file format mcpcheck writes.
const SuppressionsVersion = 1

// suppressionJSON is an entry as the file spells it, in the order it is written.
type suppressionJSON struct {
	Fingerprint string `json:"fingerprint"`
	Reason      string `json:"reason"`
	Expires     string `json:"expires,omitempty"`
	Rule        string `json:"rule,omitempty"`
	Label       string `json:"label,omitempty"`
	Subject     string `json:"subject,omitempty"`
	Message     string `json:"message,omitempty"`
}

// ParseSuppressions reads a suppressions file:
//
//	{"version": 1, "suppressions": [{"fingerprint": "…", "reason": "…", "expires": "2026-12-31", …}]}
//
// Every entry needs a well-formed fingerprint, used once, and a reason; an
// expiry is a date. An error names the file and, when one is at fault, the
// entry by its line, number and fingerprint.
func ParseSuppressions(name string, data []byte) (*Suppressions, error) {
	set := &Suppressions{File: name}
	p := suppressionsParser{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the suppressions file is empty; it must hold {\"version\": %d, \"suppressions\": [...]}", name, SuppressionsVersion)
	}
	if err := p.delim('{', `a JSON object {"version": 1, "suppressions": [...]}`); err != nil {
		return nil, err
	}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.syntax(err)
		}
		switch key, _ := tok.(string); key {
		case "version":
			var v json.RawMessage
			if err := p.dec.Decode(&v); err != nil {
				return nil, p.syntax(err)
			}
			if string(v) != "1" {
				return nil, p.at(p.dec.InputOffset(), "version %s is not supported; this mcpcheck reads version %d", v, SuppressionsVersion)
			}
		case "suppressions":
			if err := p.entries(set); err != nil {
				return nil, err
			}
		default:
			return nil, p.at(p.dec.InputOffset(), "unknown member %q; a suppressions file has version and suppressions", key)
		}
	}
	if _, err := p.dec.Token(); err != nil { // the closing brace
		return nil, p.syntax(err)
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.at(p.dec.InputOffset(), "unexpected data after the suppressions object")
	}
	return set, nil
}

type suppressionsParser struct {
	name string
	data []byte
	dec  *json.Decoder
}

// entries reads the suppressions array into set, validating each entry.
func (p *suppressionsParser) entries(set *Suppressions) error {
	if err := p.delim('[', "suppressions to be an array of entries"); err != nil {
		return err
	}
	first := map[string]*Suppression{}
	for n := 1; p.dec.More(); n++ {
		start := p.valueStart(p.dec.InputOffset())
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return p.syntax(err)
		}
		e, err := parseSuppression(raw)
		where := fmt.Sprintf("entry %d", n)
		if e.Fingerprint != "" {
			where += fmt.Sprintf(" (fingerprint %s)", Quote(e.Fingerprint, 40))
		}
		if err != nil {
			return p.at(start, "%s: %v", where, err)
		}
		e.File, e.Line = p.name, lineAt(p.data, start)
		if prev := first[e.Fingerprint]; prev != nil {
			return p.at(start, "%s: the fingerprint is already suppressed at line %d; keep one entry per fingerprint", where, prev.Line)
		}
		first[e.Fingerprint] = e
		set.Entries = append(set.Entries, e)
	}
	_, err := p.dec.Token() // the closing bracket
	if err != nil {
		return p.syntax(err)
	}
	return nil
}

// parseSuppression decodes and validates one entry.
func parseSuppression(raw json.RawMessage) (*Suppression, error) {
	var j suppressionJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&j)
	e := &Suppression{
		Fingerprint: strings.ToLower(strings.TrimSpace(j.Fingerprint)), Reason: j.Reason, Expires: j.Expires,
		Rule: j.Rule, Label: j.Label, Subject: j.Subject, Message: j.Message,
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return e, fmt.Errorf("%s is not a string", typeErr.Field)
	case err != nil && strings.Contains(err.Error(), "unknown field"):
		_, field, _ := strings.Cut(err.Error(), "unknown field ")
		return e, fmt.Errorf("unknown member %s; an entry has fingerprint, reason, expires, rule, label, subject and message", field)
	case err != nil:
		return e, fmt.Errorf("not an object {\"fingerprint\": …, \"reason\": …}")
	case e.Fingerprint == "":
		return e, fmt.Errorf("no fingerprint")
	case !ValidFingerprint(e.Fingerprint):
		return e, fmt.Errorf("fingerprint %s is not %d hexadecimal digits as --format json and SARIF show them", Quote(e.Fingerprint, 40), fingerprintLen)
	case strings.TrimSpace(e.Reason) == "":
		return e, fmt.Errorf("no reason; say why the finding is accepted")
	}
	if e.Expires != "" {
		if _, err := ParseExpiry(e.Expires); err != nil {
			return e, err
		}
	}
	return e, nil
}

// ParseExpiry reads an expiry date: YYYY-MM-DD, a day in UTC.
func ParseExpiry(s string) (time.Time, error) {
	day, err := time.Parse(time.DateOnly, s)
	if err != nil || !revisionFormat.MatchString(s) {
		return time.Time{}, fmt.Errorf("expires %s is not a date YYYY-MM-DD", Quote(s, 40))
	}
	return day, nil
}

// Expired reports whether the entry no longer holds at now: it expires at
// the end of its expires day, UTC.
func (e *Suppression) Expired(now time.Time) bool {
	if e.Expires == "" {
		return false
	}
	day, err := ParseExpiry(e.Expires)
	return err == nil && !now.Before(day.AddDate(0, 0, 1))
}

func (p *suppressionsParser) delim(want json.Delim, what string) error {
	off := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		return p.syntax(err)
	}
	if tok != want {
		return p.at(off, "expected %s", what)
	}
	return nil
}

// valueStart is where the value after off begins: past white space and a comma.
func (p *suppressionsParser) valueStart(off int64) int64 {
	for off < int64(len(p.data)) && strings.IndexByte(" \t\r\n,", p.data[off]) >= 0 {
		off++
	}
	return off
}

func (p *suppressionsParser) at(off int64, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, lineAt(p.data, off), fmt.Sprintf(format, args...))
}

// syntax names the line of a JSON syntax error.
func (p *suppressionsParser) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return p.at(se.Offset, "not JSON: %v", err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return p.at(int64(len(p.data)), "not JSON: the file ends early")
	}
	return fmt.Errorf("%s: not JSON: %v", p.name, err)
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// Put adds e, or updates the entry with e's fingerprint: the reason and
// expiry become e's, and what the entry says of its finding is kept where e
// says nothing. It reports whether the entry is new.
func (s *Suppressions) Put(e Suppression) bool {
	for _, old := range s.Entries {
		if old.Fingerprint != e.Fingerprint {
			continue
		}
		old.Reason, old.Expires = e.Reason, e.Expires
		keep := func(dst *string, src string) {
			if src != "" {
				*dst = src
			}
		}
		keep(&old.Rule, e.Rule)
		keep(&old.Label, e.Label)
		keep(&old.Subject, e.Subject)
		keep(&old.Message, e.Message)
		return false
	}
	s.Entries = append(s.Entries, &e)
	return true
}

// Marshal renders the file canonically: entries sorted by fingerprint, one
// member per line, indented, so that a checked-in file diffs readably.
func (s *Suppressions) Marshal() []byte {
	entries := slices.Clone(s.Entries)
	slices.SortFunc(entries, func(a, b *Suppression) int { return strings.Compare(a.Fingerprint, b.Fingerprint) })
	doc := struct {
		Version      int               `json:"version"`
		Suppressions []suppressionJSON `json:"suppressions"`
	}{SuppressionsVersion, make([]suppressionJSON, 0, len(entries))}
	for _, e := range entries {
		doc.Suppressions = append(doc.Suppressions, suppressionJSON{
			Fingerprint: e.Fingerprint, Reason: e.Reason, Expires: e.Expires,
			Rule: e.Rule, Label: e.Label, Subject: e.Subject, Message: e.Message,
		})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(doc) // strings only: it cannot fail
	return b.Bytes()
}

// suppressor applies a suppressions file to one run: it decides each
// finding as its session is frozen, and remembers which entries matched.
type suppressor struct {
	byFP   map[string]*entryState
	order  []*entryState   // file order
	folded map[string]bool // rules that folded findings past their cap in some session
}

type entryState struct {
	entry   *Suppression
	expired bool
	// where the entry first matched: the session its own findings go to,
	// and the finding an expired entry no longer suppresses
	session *SessionResult
	first   Location
}

func newSuppressor(set *Suppressions) *suppressor {
	if set == nil {
		return nil
	}
	now := set.Now
	if now.IsZero() {
		now = time.Now()
	}
	m := &suppressor{byFP: make(map[string]*entryState, len(set.Entries))}
	for _, e := range set.Entries {
		if m.byFP[e.Fingerprint] != nil {
			continue // ParseSuppressions refuses duplicates; a hand-built set keeps the first
		}
		st := &entryState{entry: e, expired: e.Expired(now)}
		m.byFP[e.Fingerprint] = st
		m.order = append(m.order, st)
	}
	return m
}

// decide returns the entry that suppresses f, found in session s, or nil.
// An expired entry matches but no longer suppresses.
func (m *suppressor) decide(f *Finding, s *SessionResult) *Suppression {
	if m == nil {
		return nil
	}
	st := m.byFP[f.Fingerprint]
	if st == nil {
		return nil
	}
	if st.session == nil {
		st.session, st.first = s, Location{File: f.File, Line: f.Line}
	}
	if st.expired {
		return nil
	}
	return st.entry
}

// report adds the findings about the entries once every session is
// decided: expired-suppression for each expired entry, stale-suppression
// for each that matched nothing although the run could have shown its
// finding. They are placed at the entry in the suppressions file (the line
// to edit), in the session the entry matched, else the first session of
// its label, else the run's first session.
func (m *suppressor) report(res *Result, cfg *Config) {
	if m == nil || res.NumSessions() == 0 {
		return
	}
	// The first session of each label an entry names, and the run's first
	// (one pass: a run of many sessions reads them back from its file).
	named := map[string]bool{}
	for _, st := range m.order {
		named[st.entry.Label] = true
	}
	byLabel := map[string]*SessionResult{}
	var first *SessionResult
	for s := range res.AllSessions() {
		if first == nil {
			first = s
		}
		if _, ok := byLabel[s.Label]; !ok && named[s.Label] {
			byLabel[s.Label] = s
		}
	}
	for _, st := range m.order {
		e := st.entry
		var r *Rule
		var msg string
		switch {
		case st.expired:
			r, msg = ruleExpiredSuppression, fmt.Sprintf("suppression %s%s expired at the end of %s and no longer suppresses", e.Fingerprint, entryWhat(e), e.Expires)
		case st.session == nil && m.couldMatch(e, byLabel, cfg):
			r, msg = ruleStaleSuppression, fmt.Sprintf("suppression %s%s matched no finding", e.Fingerprint, entryWhat(e))
		default:
			continue
		}
		if !slices.Contains(cfg.Rules, r) {
			continue // disabled
		}
		s := st.session
		if s == nil {
			s = byLabel[e.Label]
		}
		if s == nil {
			s = first
		}
		fd := &Finding{
			Rule: r.ID, Signal: r.Signal, Severity: r.Severity, Message: secrets.Mask(oneLine(msg)), // a hand-written entry is text like any other
			File: e.File, Line: e.Line, Session: s.ID, Label: s.Label,
			Subject: "suppression " + e.Fingerprint,
			Gated:   cfg.Gate.Selects(r),
		}
		fd.Fingerprint = fingerprint(s.Label, s.Ordinal, r.ID, fd.Subject, 0)
		if st.session != nil {
			fd.Relate(st.first.File, st.first.Line, "the finding it no longer suppresses")
		}
		res.addFinding(s, fd)
	}
}

// noteFolded records that rule r folded findings past its cap (spec §2.4):
// those are counted, never listed, so an entry may have accepted one of
// them without anything to match here.
func (m *suppressor) noteFolded(rule string) {
	if m == nil {
		return
	}
	if m.folded == nil {
		m.folded = map[string]bool{}
	}
	m.folded[rule] = true
}

// couldMatch reports whether the run could have shown e's finding, so that
// its absence means the entry is stale: an entry of a server label the run
// never saw, of a rule --disable turned off, or of a rule that folded
// findings it did not list (one of them may be the entry's) is not judged.
func (m *suppressor) couldMatch(e *Suppression, byLabel map[string]*SessionResult, cfg *Config) bool {
	if m.folded[e.Rule] || (e.Rule == "" && len(m.folded) > 0) {
		return false
	}
	if e.Label != "" && byLabel[e.Label] == nil {
		return false
	}
	if e.Rule != "" && Lookup(cfg.Catalogue, e.Rule) != nil && Lookup(cfg.Rules, e.Rule) == nil {
		return false
	}
	return true
}

// entryWhat is what an entry says it suppressed, for messages.
func entryWhat(e *Suppression) string {
	rule := e.Rule
	if rule != "" && !ruleIDPattern.MatchString(rule) {
		rule = Quote(rule, 40)
	}
	switch {
	case rule != "" && e.Subject != "":
		return fmt.Sprintf(" of %s %s", rule, Quote(e.Subject, 80))
	case rule != "":
		return " of " + rule
	case e.Subject != "":
		return " of " + Quote(e.Subject, 80)
	}
	return ""
}
