package checks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/session"
)

// Location is a place in a capture.
type Location struct {
	File    string
	Line    int
	Message string // what is there, for related locations ("request sent here")
}

// Finding is one problem a rule found.
type Finding struct {
	Rule     string
	Signal   Signal
	Severity Severity
	Message  string // the problem only; reporters add the location

	File    string
	Line    int // line of the frame's envelope; 0 for a whole session
	Session string
	Label   string
	Seq     int64
	Subject string // stable: method and tool, prompt or URI; never a request id, line or time

	Related []Location

	// Fingerprint is derived from (session label, the session's ordinal
	// among sessions of that label in its file, rule, subject) and the
	// occurrence among equal subjects, never from lines, timestamps or
	// request ids, so the same traffic recorded twice keeps its
	// fingerprints and two sessions of one server in one file do not share
	// them (spec §3, §7.3).
	Fingerprint string

	// Gated is true when the finding's signal or rule is selected by
	// --fail-on: it fails the gate and is reported at level error.
	Gated bool

	// Suppressed is the suppressions entry that accepts the finding, or
	// nil: a suppressed finding is reported and counted apart, at level
	// note, and never fails the gate.
	Suppressed *Suppression

	// Also is how many more occurrences this finding stands for, when a
	// rule lists a flood of the same problem once: they are counted, not
	// listed.
	Also int

	// Drift is the tool change a tool-drift finding reports (its tier and
	// fields, for reports that carry them apart from the message).
	Drift *baseline.ToolChange

	// Exchange is the request the finding is about and its answer, when it
	// is about one; nil otherwise.
	Exchange *Exchange
	call     *session.Call // until the session ends, to learn its outcome

	// folded marks the finding that stands for a rule's findings past
	// MaxFindingsPerRule in one session: rules that hold on to a finding
	// they reported may still count on it (Also), but it keeps nothing else.
	folded bool
	// pinned marks a finding a rule holds on to (repeats): the session's
	// log keeps it whole rather than encoded (live.go).
	pinned bool
}

// Level is how reports show the finding: error when gated, note otherwise.
func (f *Finding) Level() string {
	if f.Gated {
		return "error"
	}
	return "note"
}

// fingerprint hashes a finding's identity. ordinal counts the earlier
// sessions of the same label in the same file (not in the run, so adding a
// capture to a job changes nothing). The first session's fingerprints are
// hashed without it, as before ordinals existed, so existing suppressions
// keep matching; the others end in a field no occurrence number can spell.
func fingerprint(label string, ordinal int, rule, subject string, occurrence int) string {
	// Every finding of a run is fingerprinted as its session ends: one
	// string made, no hash or formatting state on the heap.
	var buf [256]byte
	b := append(buf[:0], label...)
	b = append(append(append(append(b, 0), rule...), 0), subject...)
	b = strconv.AppendInt(append(b, 0), int64(occurrence), 10)
	if ordinal > 0 {
		b = strconv.AppendInt(append(b, "\x00session "...), int64(ordinal), 10)
	}
	sum := sha256.Sum256(b)
	var out [fingerprintLen]byte
	hex.Encode(out[:], sum[:fingerprintLen/2])
	return string(out[:])
}

// fingerprintLen is the length of a fingerprint in hexadecimal digits.
const fingerprintLen = 32

// ValidFingerprint reports whether s has the form of a fingerprint as
// mcpcheck writes them (lower-case hexadecimal).
func ValidFingerprint(s string) bool {
	if len(s) != fingerprintLen {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Pass is a rule's view of one session: where it reports.
type Pass struct {
	Session *session.Session
	rule    *Rule
	sink    *sessionRun
}

// Fact returns the session's tracker of k to a rule that declared it in
// Rule.Facts; reading an undeclared fact fails the rule (internal-error).
func (p *Pass) Fact(k *facts.Key) facts.Tracker {
	for _, d := range p.rule.Facts {
		if d.Key() == k {
			if t := p.sink.facts.Get(k); t != nil {
				return t
			}
			panic(fmt.Sprintf("fact %s is not available", k.Name))
		}
	}
	panic(fmt.Sprintf("rule %s reads fact %s without declaring it in Facts", p.rule.ID, k.Name))
}

// Report records a finding at frame f.
func (p *Pass) Report(f *session.Frame, subject, format string, args ...any) *Finding {
	fd := p.ReportAt(Location{File: f.File, Line: f.Line}, f.Seq, subject, format, args...)
	if f.Call != nil && !fd.folded {
		fd.Exchange = exchangeAt(f)
		if fd.Exchange.Answer == "" {
			fd.call = f.Call // what becomes of it is known when the session ends
		}
	}
	return fd
}

// ReportAt records a finding at a location that is not a frame being seen.
//
// A rule's first MaxFindingsPerRule findings in a session are kept in full;
// each later one is only counted, on the one finding that stands for them
// all (spec §2.4), which is what ReportAt then returns: a rule may count
// more occurrences on it (Also), and the rest of what it sets is dropped.
func (p *Pass) ReportAt(at Location, seq int64, subject, format string, args ...any) *Finding {
	if n := p.sink.cfg.Found; n != nil {
		n.Add(1) // --progress counts every finding, listed or not
	}
	if fd := p.sink.fold(p.rule, at); fd != nil {
		return fd // not even formatted: a flood must cost little
	}
	fd := &Finding{
		Rule: p.rule.ID, Signal: p.rule.Signal, Severity: p.rule.Severity,
		Message: secrets.Mask(oneLine(fmt.Sprintf(format, args...))),
		File:    at.File, Line: at.Line, Seq: seq,
		Session: p.Session.ID,
		Subject: secrets.Mask(subject),
	}
	p.sink.findings = append(p.sink.findings, fd)
	return fd
}

// Relate adds a related location to a finding.
func (fd *Finding) Relate(file string, line int, message string) *Finding {
	if line > 0 && !fd.folded {
		fd.Related = append(fd.Related, Location{File: file, Line: line, Message: secrets.Mask(message)})
	}
	return fd
}

// Quote renders capture text for a message: runs of white space (line
// breaks included) folded into one space, control and invisible characters
// escaped, at most max runes, in double quotes. Error texts often carry
// pretty-printed JSON; a finding is one line. Credential-shaped values are
// masked before the text is cut, so that no cut leaves part of a secret.
func Quote(s string, max int) string {
	s = strings.TrimSpace(s)
	end, _ := quoteRunes(nil, s, max)
	shown, more := maskShown(s, end)
	var b strings.Builder
	b.WriteByte('"')
	if _, cut := quoteRunes(&b, shown, max); cut || more {
		b.WriteString("…")
	}
	b.WriteByte('"')
	return b.String()
}

// quoteRunes writes (when b is set) the quoted form of at most max runes of
// s, and returns the offset in s after the last rune shown and whether s
// was cut there.
func quoteRunes(b *strings.Builder, s string, max int) (end int, cut bool) {
	n := 0
	space := false
	for i, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space {
			space = false
			if n++; n > max {
				return i, true
			}
			if b != nil {
				b.WriteByte(' ')
			}
		}
		if n++; n > max {
			return i, true
		}
		if b != nil {
			writeQuotedRune(b, r)
		}
	}
	return len(s), false
}

func writeQuotedRune(b *strings.Builder, r rune) {
	switch {
	case r == utf8.RuneError:
		b.WriteRune(utf8.RuneError) // invalid UTF-8 in the capture
	case r == '"' || r == '\\':
		b.WriteByte('\\')
		b.WriteRune(r)
	case r > 0xffff && invisible(r):
		fmt.Fprintf(b, `\U%08x`, r)
	case invisible(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteRune(r)
	}
}

// invisible reports the characters a message shows escaped: controls,
// format characters (zero-width, bidirectional, tag characters), private
// use, line and paragraph separators, and variation selectors.
func invisible(r rune) bool {
	return r < 0x20 || r == 0x7f || unicode.In(r, unicode.Cf, unicode.Cc, unicode.Co, unicode.Zl, unicode.Zp, unicode.Variation_Selector)
}

// maskShown returns s[:end] with its credential-shaped values masked (one
// that starts before end is masked whole), and whether s goes on after
// what it shows. Only a window past end is searched: Quote is called with
// megabytes of capture text and shows a line of it.
func maskShown(s string, end int) (string, bool) {
	window := s[:min(len(s), end+maskWindow)]
	if !secrets.Suspect(window) {
		return s[:end], end < len(s)
	}
	var b strings.Builder
	last := 0
	for _, m := range secrets.Find(window) {
		if m.Start >= end {
			break
		}
		b.WriteString(s[last:m.Start])
		b.WriteString(secrets.Label(m.Kind, s[m.Start:m.End]))
		last = m.End
	}
	if last < end {
		b.WriteString(s[last:end])
		last = end
	}
	return b.String(), last < len(s)
}

// maskWindow is how far past the shown text Quote looks for the end of a
// secret that starts in it: longer than any credential Find recognises.
const maskWindow = 32 << 10

// oneLine keeps a message on one line whatever the capture put in it.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
