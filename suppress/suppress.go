// Package suppress is the suppressions file (spec §5.1): the findings a
// team accepted, by fingerprint or, for every finding of a rule (of one
// server label), by scope, with a reason and an optional expiry. It reads,
// edits and writes the file; matching findings against it is the
// engine's.
package suppress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/fingerprint"
)

// Suppression is one entry of a suppressions file: a finding, named by its
// fingerprint, that a team accepted for a reason, until an optional date.
// An entry without a fingerprint is scoped: it accepts every finding of its
// Rule, of its Label when it names one ("all schema-construct notes of
// server notion").
type Suppression struct {
	Fingerprint string
	Reason      string
	Expires     string // YYYY-MM-DD: the last day it holds, UTC; "" never expires

	// What the finding was when it was accepted, so that a reviewer
	// recognises it in a diff; any of them may be empty. For a scoped
	// entry Rule (lower case) and Label are what it matches, and Subject
	// and Message are empty.
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

// Version is the version of the file format mcpcheck writes.
const Version = 1

// suppressionJSON is an entry as the file spells it, in the order it is written.
type suppressionJSON struct {
	Fingerprint string `json:"fingerprint,omitempty"`
	Reason      string `json:"reason"`
	Expires     string `json:"expires,omitempty"`
	Rule        string `json:"rule,omitempty"`
	Label       string `json:"label,omitempty"`
	Subject     string `json:"subject,omitempty"`
	Message     string `json:"message,omitempty"`
}

// Parse reads a suppressions file:
//
//	{"version": 1, "suppressions": [{"fingerprint": "…", "reason": "…", "expires": "2026-12-31", …}]}
//
// or, scoped, {"rule": "schema-construct", "label": "notion", "reason": "…"}
// with no fingerprint. Every entry needs a well-formed fingerprint, used
// once, or a rule id (a scope used once), and a reason; an expiry is a
// date. An error names the file and, when one is at fault, the
// entry by its line, number and fingerprint.
func Parse(name string, data []byte) (*Suppressions, error) {
	set := &Suppressions{File: name}
	p := suppressionsParser{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the suppressions file is empty; it must hold {\"version\": %d, \"suppressions\": [...]}", name, Version)
	}
	if err := p.delim('{', `a JSON object {"version": 1, "suppressions": [...]}`); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for p.dec.More() {
		at := p.valueStart(p.dec.InputOffset())
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.syntax(err)
		}
		key, _ := tok.(string)
		if seen[key] {
			// readers disagree about which of the two counts: refuse both
			return nil, p.at(at, "member %q appears twice; a suppressions file has one version and one suppressions array", key)
		}
		seen[key] = true
		switch key {
		case "version":
			var v json.RawMessage
			if err := p.dec.Decode(&v); err != nil {
				return nil, p.syntax(err)
			}
			if string(v) != "1" {
				return nil, p.at(p.dec.InputOffset(), "version %s is not supported; this mcpcheck reads version %d", v, Version)
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
			where += fmt.Sprintf(" (fingerprint %s)", checks.Quote(e.Fingerprint, 40))
		} else if e.Rule != "" {
			where += fmt.Sprintf(" (%s)", e.Scope())
		}
		if name, off := duplicateMember(raw); off >= 0 {
			return p.at(p.valueStart(start+off), "%s: member %s appears twice; keep one (readers disagree about which one counts)", where, checks.Quote(name, 40))
		}
		if err != nil {
			return p.at(start, "%s: %v", where, err)
		}
		e.File, e.Line = p.name, lineAt(p.data, start)
		if prev := first[e.Key()]; prev != nil {
			if e.Scoped() {
				return p.at(start, "%s: %s is already suppressed at line %d; keep one entry per scope", where, e.Scope(), prev.Line)
			}
			return p.at(start, "%s: the fingerprint is already suppressed at line %d; keep one entry per fingerprint", where, prev.Line)
		}
		first[e.Key()] = e
		set.Entries = append(set.Entries, e)
	}
	_, err := p.dec.Token() // the closing bracket
	if err != nil {
		return p.syntax(err)
	}
	return nil
}

// duplicateMember finds a member name that the object raw uses twice and
// returns it with the offset in raw where its second use begins (-1 when
// there is none, or raw is not an object). Names compare as encoding/json
// matches them to fields, ignoring case: "Reason" and "reason" both set
// the reason.
func duplicateMember(raw []byte) (string, int64) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", -1
	}
	seen := map[string]bool{}
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", -1
		}
		name, _ := tok.(string)
		key := foldName(name)
		if seen[key] {
			return name, off
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", -1
		}
	}
	return "", -1
}

// foldName is name with every letter replaced by the smallest of its
// case-folding orbit, so two names are equal under Unicode case folding
// (as encoding/json compares them) exactly when their foldName is.
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, name)
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
	if e.Fingerprint == "" {
		e.Rule = strings.ToLower(strings.TrimSpace(e.Rule)) // rule ids are case-insensitive
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
	case e.Fingerprint == "" && e.Rule == "":
		return e, fmt.Errorf("no fingerprint and no rule; an entry accepts one finding by its fingerprint, or every finding of a rule (of one label)")
	case e.Fingerprint == "" && !checks.ValidRuleID(e.Rule):
		return e, fmt.Errorf("rule %s is not a rule id", checks.Quote(e.Rule, 40))
	case e.Fingerprint == "" && (e.Subject != "" || e.Message != ""):
		return e, fmt.Errorf("a scoped entry (no fingerprint) matches by rule and label only; drop its subject and message")
	case e.Fingerprint != "" && !fingerprint.Valid(e.Fingerprint):
		return e, fmt.Errorf("fingerprint %s is not %d hexadecimal digits as --format json and SARIF show them", checks.Quote(e.Fingerprint, 40), fingerprint.Len)
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
	if err != nil || !dateFormat.MatchString(s) {
		return time.Time{}, fmt.Errorf("expires %s is not a date YYYY-MM-DD", checks.Quote(s, 40))
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

// Scoped reports whether the entry accepts findings by rule and label
// rather than one by its fingerprint.
func (e *Suppression) Scoped() bool { return e.Fingerprint == "" }

// Scope names a scoped entry's findings: "every schema-construct finding
// of label "notion"".
func (e *Suppression) Scope() string {
	s := "every " + e.Rule + " finding"
	if e.Label != "" {
		s += " of label " + checks.Quote(e.Label, 80)
	}
	return s
}

// Key is what an entry is unique by: its fingerprint, or its scope.
func (e *Suppression) Key() string {
	if e.Scoped() {
		return "\x00" + e.Rule + "\x00" + e.Label
	}
	return e.Fingerprint
}

// Matches reports whether the scoped entry accepts a finding of rule
// (any case) in a session of label.
func (e *Suppression) Matches(rule, label string) bool {
	return e.Scoped() && strings.EqualFold(e.Rule, rule) && (e.Label == "" || e.Label == label)
}

// Put adds e, or updates the entry with e's fingerprint (or scope): the
// reason and expiry become e's, and what the entry says of its finding is
// kept where e says nothing. It reports whether the entry is new.
func (s *Suppressions) Put(e Suppression) bool {
	for _, old := range s.Entries {
		if old.Key() != e.Key() {
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

// Marshal renders the file canonically: scoped entries first, by rule and
// label, then the others by fingerprint, one member per line, indented,
// so that a checked-in file diffs readably.
func (s *Suppressions) Marshal() []byte {
	entries := slices.Clone(s.Entries)
	slices.SortFunc(entries, func(a, b *Suppression) int { return strings.Compare(a.Key(), b.Key()) })
	doc := struct {
		Version      int               `json:"version"`
		Suppressions []suppressionJSON `json:"suppressions"`
	}{Version, make([]suppressionJSON, 0, len(entries))}
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

// dateFormat is the form of an expiry: a date with every digit written.
var dateFormat = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
