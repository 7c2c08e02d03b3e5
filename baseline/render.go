package baseline

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxValue bounds a value shown in a diff line: a diff points at what
// changed, it does not reprint schemas.
const maxValue = 60

// String is the diff as one short line: `/properties/path/type: "string" →
// "array"`, `/properties/head: added {"type":"number"}`, `/required:
// removed "path"`.
func (d Diff) String() string {
	var b strings.Builder
	if d.Pointer != "" {
		b.WriteString(d.Pointer)
		b.WriteString(": ")
	}
	switch {
	case d.Old == "" && d.New == "":
		b.WriteString("changed")
	case d.Old == "":
		b.WriteString("added " + d.value(d.New))
	case d.New == "":
		b.WriteString("removed " + d.value(d.Old))
	default:
		o, n := excerpts(d.Old, d.New)
		b.WriteString(o + " → " + n)
	}
	return b.String()
}

// value shows an added or removed value: shortened, and a whole schema
// (no pointer) that does not fit only as its kind.
func (d Diff) value(v string) string {
	if d.Pointer == "" && utf8.RuneCountInString(v) > maxValue && (v[0] == '{' || v[0] == '[') {
		return v[:1] + "…" + v[len(v)-1:]
	}
	return short(v)
}

// Explained is the diff with its tier and reason: `… (breaking: required
// argument added)`.
func (d Diff) Explained() string {
	if d.Reason == "" {
		return fmt.Sprintf("%s (%s)", d, d.Tier)
	}
	return fmt.Sprintf("%s (%s: %s)", d, d.Tier, d.Reason)
}

// Headline is the field's most important difference.
func (fc FieldChange) Headline() Diff {
	best := fc.Diffs[0]
	for _, d := range fc.Diffs[1:] {
		if d.Tier > best.Tier {
			best = d
		}
	}
	return best
}

// Summary is the change in one line, the tool-drift finding's message:
// the tool, its tier, and for a changed tool each field with its tier and
// most important difference.
func (c ToolChange) Summary(quote func(string) string) string {
	name := quote(c.Tool)
	switch c.Change {
	case Added:
		return fmt.Sprintf("tool %s was added since the baseline (%s)", name, c.Tier)
	case Removed:
		return fmt.Sprintf("tool %s was removed since the baseline (%s)", name, c.Tier)
	}
	parts := make([]string, 0, len(c.Fields))
	for _, fc := range c.Fields {
		h := fc.Headline()
		var part string
		switch {
		case h.Pointer == "" && h.Reason != "" && (h.Old == "" || h.New == ""):
			part = fmt.Sprintf("%s %s (%s", fc.Field, fc.Tier, h.Reason) // a whole schema added or removed
		case h.Reason != "":
			part = fmt.Sprintf("%s %s (%s, %s", fc.Field, fc.Tier, h, h.Reason)
		default:
			part = fmt.Sprintf("%s %s (%s", fc.Field, fc.Tier, h)
		}
		if len(fc.Diffs) > 1 {
			part += fmt.Sprintf("; %d more", len(fc.Diffs)-1)
		}
		parts = append(parts, part+")")
	}
	return fmt.Sprintf("tool %s changed since the baseline (%s): %s", name, c.Tier, strings.Join(parts, "; "))
}

// FieldTiers is "input_schema:breaking, description:review".
func (c ToolChange) FieldTiers() []string {
	out := make([]string, len(c.Fields))
	for i, fc := range c.Fields {
		out[i] = string(fc.Field) + ":" + fc.Tier.String()
	}
	return out
}

// short cuts a value to maxValue runes, at the end of a word when one ends
// near the cut: a reader sees words, not "directorie…".
func short(s string) string {
	if utf8.RuneCountInString(s) <= maxValue {
		return s
	}
	r := []rune(s)[:maxValue-1]
	for i := len(r) - 1; i >= len(r)-wordSlack && i > 0; i-- {
		if r[i] == ' ' {
			r = r[:i]
			break
		}
	}
	return string(r) + "…"
}

// wordSlack is how far a cut moves to fall between words.
const wordSlack = 15

// excerpts shows where two values differ: a long common beginning is
// elided, so two descriptions that differ at the end show their ends.
func excerpts(a, b string) (string, string) {
	if utf8.RuneCountInString(a) <= maxValue && utf8.RuneCountInString(b) <= maxValue {
		return a, b
	}
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	const context = 12
	if i > context+1 {
		from := i - context
		for j := from; j > max(0, from-wordSlack); j-- {
			if ra[j-1] == ' ' { // start the excerpt at a word
				from = j
				break
			}
		}
		ra = append([]rune("…"), ra[from:]...)
		rb = append([]rune("…"), rb[from:]...)
	}
	return short(string(ra)), short(string(rb))
}
