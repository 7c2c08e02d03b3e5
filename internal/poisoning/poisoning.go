// Package poisoning finds what tool poisoning puts in the text a client
// shows the model: hidden characters, and instructions aimed at the model
// rather than at a person reading a tool's documentation. It finds and
// leaves the wording to the tool-poisoning rule (checks/tool_poisoning.go).
// Each pattern is compiled once; the rule reads only listings, never the
// traffic of calls.
package poisoning

import (
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpcheck/mcpcheck/internal/dfa"
)

// Text is what Inspect found in one field.
type Text struct {
	Tags         string // what tag characters spell
	TagCount     int    // tag characters, spelling or not
	ZeroWidth    []rune // distinct, in order of appearance
	Bidi         []rune // bidirectional controls in text without right-to-left letters
	Selectors    []rune // variation selectors outside an emoji
	FirstHidden  int    // byte offset of the first hidden character; -1 when none
	Instructions []Instruction
}

// Instruction is one kind of instruction to the model, with the first
// evidence of it. A Text lists each kind once, in the order of Kinds.
type Instruction struct {
	Kind     string // "instruction override", "credential file", …
	Evidence string // the text that shows it (a match, a path, a URL), not quoted
	kind     int    // its index in instructionKinds
}

// Hidden reports whether the field has hidden characters.
func (t *Text) Hidden() bool { return t.FirstHidden >= 0 }

// Inspect looks at one field: its hidden characters, then the instructions
// in what remains visible and in what tag characters spell.
func Inspect(s string) *Text {
	pt := &Text{FirstHidden: -1}
	var tags strings.Builder  // what tag characters spell
	var shown strings.Builder // what is visible, once a hidden character was found
	rtl := -1                 // whether s has right-to-left letters, decided on first need
	prev := rune(-1)
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII hides nothing: only its neighbours look at it
			if pt.FirstHidden >= 0 {
				shown.WriteByte(c)
			}
			prev = rune(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		next, _ := utf8.DecodeRuneInString(s[i+size:])
		if i+size >= len(s) {
			next = -1
		}
		hidden := false
		switch {
		case isTag(r):
			if end, ok := emojiTagSequence(s, i, prev); ok {
				if pt.FirstHidden >= 0 {
					shown.WriteString(s[i:end])
				}
				prev, i = 0xE007F, end
				continue
			}
			hidden = true
			pt.TagCount++
			if r >= 0xE0020 && r <= 0xE007E {
				tags.WriteRune(r - 0xE0000)
			}
		case isZeroWidth(r):
			hidden = !(r == 0xFEFF && i == 0) && !joinsScript(r, prev, next)
			if hidden {
				pt.ZeroWidth = addRune(pt.ZeroWidth, r)
			}
		case isBidi(r):
			if rtl < 0 {
				rtl = 0
				if hasRTL(s) {
					rtl = 1
				}
			}
			hidden = rtl == 0 // marks and isolates belong in mixed-direction text
			if hidden {
				pt.Bidi = addRune(pt.Bidi, r)
			}
		case unicode.Is(unicode.Variation_Selector, r):
			// One selector after a character picks its form (an emoji,
			// a keycap, an ideograph's variant); a run of them, or one
			// with nothing to modify, encodes something else.
			hidden = prev < 0 || unicode.IsSpace(prev) || unicode.Is(unicode.Variation_Selector, prev) || unicode.Is(unicode.Variation_Selector, next)
			if hidden {
				pt.Selectors = addRune(pt.Selectors, r)
			}
		}
		if hidden {
			if pt.FirstHidden < 0 {
				pt.FirstHidden = i
				shown.WriteString(s[:i]) // what was visible so far
			}
		} else if pt.FirstHidden >= 0 {
			shown.WriteString(s[i : i+size])
		}
		prev = r
		i += size
	}
	visible := s
	if pt.FirstHidden >= 0 {
		visible = shown.String()
	}
	pt.Tags = tags.String()
	pt.findInstructions(visible)
	if pt.TagCount > 0 {
		pt.findInstructions(pt.Tags)
	}
	return pt
}

func addRune(rs []rune, r rune) []rune {
	if slices.Contains(rs, r) {
		return rs
	}
	return append(rs, r)
}

func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

func isZeroWidth(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E, 0x2061, 0x2062, 0x2063, 0x2064:
		return true
	}
	return false
}

func isBidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// joinsScript reports a joiner doing its job: ZWJ inside an emoji sequence
// or between letters of a script that uses it (Devanagari, Arabic, …),
// ZWNJ between such letters (Persian, Indic). In ASCII text they only hide.
func joinsScript(r, prev, next rune) bool {
	if r != 0x200C && r != 0x200D {
		return false
	}
	part := func(c rune) bool {
		if c < 0x80 {
			return false
		}
		if r == 0x200D && (unicode.Is(unicode.So, c) || unicode.Is(unicode.Sk, c) || c == 0xFE0F) {
			return true
		}
		return unicode.IsLetter(c) || unicode.IsMark(c)
	}
	return part(prev) && part(next)
}

func hasRTL(s string) bool {
	for _, r := range s {
		// U+061C ARABIC LETTER MARK is of the Arabic script but is the
		// control itself, not right-to-left text
		if !isBidi(r) && unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko) {
			return true
		}
	}
	return false
}

// emojiTagSequence recognises a subdivision flag (🏴 + tag letters + cancel
// tag, as in the flag of England) starting at s[i]: legal emoji, not hidden
// text.
func emojiTagSequence(s string, i int, prev rune) (int, bool) {
	if prev != 0x1F3F4 {
		return 0, false
	}
	for n := 0; n < 8 && i < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == 0xE007F:
			return i, n > 0
		case r >= 0xE0030 && r <= 0xE0039, r >= 0xE0061 && r <= 0xE007A:
		default:
			return 0, false
		}
	}
	return 0, false
}

// An instruction pattern: its kind and the expressions that show it.
type instructionKind struct {
	label string
	res   []*regexp.Regexp
	// evidence, when set, picks what to quote from a match (a path, a URL);
	// ok false rejects the match.
	evidence func(text string, m []int) (string, bool)
}

var (
	// credentialPath names files that hold credentials: private keys (not
	// .pub, not ~/.ssh/config or known_hosts), cloud and registry
	// credentials, and the MCP client configurations that keep API keys.
	credentialPath = `(?:~/|\$HOME/|%USERPROFILE%\\)?(?:\.ssh/id_[\w-]+(?:\.pub)?|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|\.ssh/[\w.-]+\.pem\b|` +
		`\.aws/credentials\b|\.netrc\b|\.git-credentials\b|\.docker/config\.json\b|\.kube/config\b|/etc/shadow\b|\.gnupg\b|` +
		`\.config/gcloud\b|\bclaude_desktop_config\.json\b|\.cursor/mcp\.json\b|\.npmrc\b|\.pypirc\b)`
	// credentialVerb reads or moves a file: a credential path at most 60
	// runes after one, on its line, is asked for.
	credentialVerb = `\b(?:read|cat|include|attach|pass|send|upload|copy|provide|dump|print|output|extract|leak|grab|collect|exfiltrate)\b`
	// sendVerb sends something; sendTarget is where, at most 80 runes later
	// within its sentence.
	sendVerb   = `\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|report|submit|deliver|share|mail|email|bcc)\b`
	sendTarget = `\b(?:to|at|into)\s+(https?://[^\s"'<>)\]]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)`
	// passAlong is moving data somewhere; a weak credential path (.env) counts
	// only next to it, since a dotenv tool may read .env for a living.
	passAlong = regexp.MustCompile(`(?i)\b(?:pass|send|include|attach|upload|copy|provide|forward|leak|exfiltrate|post|transmit|append|embed)\b`)
	// dataWords are what an exfiltrating instruction sends; not "an email"
	// or "a message", which an email or chat tool sends for a living.
	dataWords = regexp.MustCompile(`(?i)\b(?:data|contents?|conversation|chat|history|credentials?|keys?|tokens?|secrets?|passwords?|files?|output|results?|responses?|everything|information|info|details|env|environment|variables|it|this|them|all|every|logs?|code|documents?|notes|prompts?|copy|copies)\b`)
	// mayInstruct holds a word every instruction pattern needs: text
	// without one is not read by them (MayInstruct).
	mayInstruct = regexp.MustCompile(`(?i)ignor|disregard|forget|overrid|bypass|tell|inform|mention|reveal|disclos|keep|hide|user|<|\[|\.ssh|id_|\.aws|netrc|credentials|docker|kube|shadow|gnupg|gcloud|mcp\.json|npmrc|pypirc|\.env|passwd|https?:|@`)
	passive     = regexp.MustCompile(`(?i)\b(?:is|are|be|been|being|was|were)\s+$`)
)

var instructionKinds = []instructionKind{
	{label: "instruction block", res: []*regexp.Regexp{
		regexp.MustCompile(`(?i)<\s*/?\s*(?:important|system|instructions?|secret|hidden|admin|critical|override|system[_-]?prompt)\s*>`),
		regexp.MustCompile(`\[/?INST\]|<<\s*/?SYS\s*>>|<\|(?:system|im_start|im_end|endoftext)\|>`),
	}},
	{label: "instruction override", res: []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget)\s+(?:(?:all|any|the|your|of|these|those|my)\s+){0,3}(?:previous|prior|above|earlier|preceding|former|system|safety)\s+(?:\w+\s+)?(?:instructions?|prompts?|rules|directions|guidelines|guardrails|policies|messages|context)\b`),
		regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget)\s+(?:all|any)\s+(?:of\s+)?(?:your\s+|the\s+|my\s+)?(?:instructions|guidelines|guardrails)\b`),
		regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:your|the\s+model's|the\s+assistant's)\s+(?:instructions|rules|guidelines|guardrails|system\s+prompt)\b`),
		regexp.MustCompile(`(?i)\b(?:override|bypass)\s+(?:\w+\s+){0,2}(?:system\s+prompt|guardrails|safety\s+(?:guidelines|policies|rules|instructions))\b`),
	}},
	{label: "secrecy towards the user", res: []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t)\s+(?:tell|inform)\s+(?:the\s+|your\s+)?users?\b`),
		regexp.MustCompile(`(?i)\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:mention|reveal|disclose)\b[^.\n]{0,40}?\bto\s+(?:the\s+|your\s+)?users?\b`),
		regexp.MustCompile(`(?i)\bwithout\s+(?:telling|informing)\s+(?:the\s+|your\s+)?users?\b`),
		regexp.MustCompile(`(?i)\b(?:keep|hide)\s+(?:this|it|these|that)\s+(?:\w+\s+)?(?:secret\s+|hidden\s+)?from\s+(?:the\s+|your\s+)?users?\b`),
		regexp.MustCompile(`(?i)\b(?:the\s+)?users?\s+(?:must|should|shall)\s+(?:not|never)\s+(?:know|find\s+out|be\s+told|learn)\b`),
		regexp.MustCompile(`(?i)\b(?:do\s+not|don'?t|never)\s+mention\s+(?:that|this|it)\b`),
	}},
	{label: "credential file", res: []*regexp.Regexp{
		regexp.MustCompile(`(?i)` + credentialVerb + `[^\n]{0,60}?(` + credentialPath + `)`),
		regexp.MustCompile(`(?i)(?:^|[\s'"` + "`" + `(~/])(\.env(?:\.[\w-]+)?|/etc/passwd)\b`),
	}, evidence: func(text string, m []int) (string, bool) {
		path := text[m[2]:m[3]]
		switch {
		case strings.HasSuffix(path, ".pub"):
			return path, false // a public key
		case strings.HasPrefix(path, ".env") || path == "/etc/passwd":
			around := text[max(0, m[0]-120):min(len(text), m[1]+120)]
			return path, passAlong.MatchString(around)
		}
		// "the key is read from ~/.ssh/id_rsa" documents the tool.
		return path, !passiveBefore(text, m[0])
	}},
	{label: "data sent to", res: []*regexp.Regexp{
		regexp.MustCompile(`(?i)` + sendVerb + `((?:[^\n.!?]|[.!?]\S){0,80}?)` + sendTarget),
	}, evidence: func(text string, m []int) (string, bool) {
		return strings.TrimRight(text[m[4]:m[5]], ".,;:"), dataWords.MatchString(text[m[2]:m[3]])
	}},
}

// patterns is every kind's expressions in order, each with the automaton
// that finds where its matches end: most share one set; the two with a
// long gap (credential file's verb and path, data sent to's verb and
// target) have a gated set each, which follows only the latest verb.
var patterns, patternSets = func() ([]pattern, []*dfa.Set) {
	gapped := map[string]*dfa.Set{
		instructionKinds[3].res[0].String(): dfa.MustCompileGated(dfa.LineGate(0, 1<<1, 60), `(?i)`+credentialVerb, `(?i)(?:`+credentialPath+`)`),
		instructionKinds[4].res[0].String(): dfa.MustCompileGated(sentenceGate(0, 1<<1, 80), `(?i)`+sendVerb, `(?i)`+sendTarget),
	}
	var out []pattern
	var plain []string
	for i, k := range instructionKinds {
		for _, re := range k.res {
			p := pattern{kind: i, re: re, expr: 1}
			if p.set = gapped[re.String()]; p.set == nil {
				p.expr = len(plain)
				plain = append(plain, re.String())
			}
			out = append(out, p)
		}
	}
	if len(gapped) != 2 {
		panic("poisoning: a gapped pattern is not among the kinds")
	}
	shared := dfa.MustCompile(plain...)
	sets := []*dfa.Set{shared}
	for i := range out {
		if out[i].set == nil {
			out[i].set = shared
		} else {
			sets = append(sets, out[i].set)
		}
	}
	return out, sets
}()

// A pattern is one expression of a kind and its place in an automaton.
type pattern struct {
	kind int
	re   *regexp.Regexp
	set  *dfa.Set
	expr int // its index in set
}

// sentenceGate is the gate of data sent to's gap,
// (?:[^\n.!?]|[.!?]\S){0,n}?: at most n units, a unit a rune that ends
// no sentence or line, or a sentence's punctuation followed by a rune that
// is not white space. State 1+2u+p is u units since the verb, p whether
// the last rune was punctuation still waiting for its second.
func sentenceGate(opener int, gated uint16, n int) *dfa.Gate {
	return &dfa.Gate{
		Opener: opener,
		Gated:  gated,
		Next: func(s uint8, r rune) uint8 {
			units, waiting := int(s-1)/2, (s-1)%2 == 1
			switch {
			case waiting && isSpaceClass(r):
				return 0 // "[.!?]" then white space: the sentence ended
			case waiting:
				return uint8(1 + 2*units)
			case r == '\n' || units == n:
				return 0
			case r == '.' || r == '!' || r == '?':
				return uint8(1 + 2*(units+1) + 1)
			}
			return uint8(1 + 2*(units+1))
		},
		Admits: func(s uint8) bool { return (s-1)%2 == 0 },
	}
}

// isSpaceClass is \s as regexp reads it.
func isSpaceClass(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// Each match a pattern's automaton reports is looked at by its regexp in
// a window around the match's end: windowBefore bytes before it (grown
// when the match is longer) and windowAfter after it. A text no longer
// than windowBefore+windowAfter-windowMargin is looked at whole, as the
// regexps alone would.
const (
	windowBefore    = 512
	windowAfter     = 128
	windowMargin    = 64 // a match ending this near the window's end is not known whole
	triesPerPattern = 8  // matches of one pattern looked at before it is given up
)

// patternSearch is the state of one pattern's search in one text.
type patternSearch struct {
	tries    int          // matches looked at
	lastEnd  int          // the end of the last of them: later ones may not overlap it
	examined int          // the end of the last window: matches ending before it were seen
	found    *Instruction // the first match that shows the kind
}

// findInstructions adds each kind of instruction in text once, with the
// first evidence of it: for each kind, the first pattern of it (in order)
// that has a match showing it, and that pattern's first such match.
//
// The patterns' automata read the text once together (a table lookup a
// byte); a pattern's regexp runs only where its automaton saw a match end,
// over a window around it, to find the match's groups and judge it. So a
// long text dense with the words the patterns need costs one pass, not a
// regexp pass per pattern.
func (pt *Text) findInstructions(text string) {
	Counters.inspected.Add(int64(len(text)))
	if !mayInstructText(text) {
		return // most documentation: one pass over the bytes
	}
	Counters.patterned.Add(int64(len(text)))
	search := make([]patternSearch, len(patterns))
	var live uint32 // the patterns still searched for
	for j, p := range patterns {
		if !pt.hasKind(p.kind) {
			live |= 1 << j
		}
	}
	for _, set := range patternSets {
		setLive := func() uint16 {
			var m uint16
			for j, p := range patterns {
				if p.set == set && live&(1<<j) != 0 {
					m |= 1 << p.expr
				}
			}
			return m
		}
		index := make([]int, set.Len()) // expression → pattern
		for j, p := range patterns {
			if p.set == set {
				index[p.expr] = j + 1
			}
		}
		set.Scan(text, setLive(), func(expr, end int) uint16 {
			j := index[expr] - 1
			if j < 0 {
				return setLive() // a gate's opener
			}
			ps := &search[j]
			if end < ps.examined {
				return setLive() // its match was looked at in an earlier window
			}
			pt.examine(text, j, end, ps)
			switch {
			case ps.found != nil:
				// a later pattern of the kind can no longer be the first
				for later := j; later < len(patterns) && patterns[later].kind == patterns[j].kind; later++ {
					live &^= 1 << later
				}
			case ps.tries >= triesPerPattern:
				live &^= 1 << j
			}
			return setLive()
		})
	}
	for j := range search {
		if in := search[j].found; in != nil && !pt.hasKind(in.kind) {
			pt.Instructions = append(pt.Instructions, *in)
		}
	}
	slices.SortStableFunc(pt.Instructions, func(a, b Instruction) int { return a.kind - b.kind })
}

// examine runs pattern j's regexp over a window around a match that ends
// at end, and judges each match in it that is whole there and overlaps
// none judged before: quoted mentions and matches the kind's evidence
// rejects do not show it.
func (pt *Text) examine(text string, j, end int, ps *patternSearch) {
	kind := patterns[j].kind
	k, re := &instructionKinds[kind], patterns[j].re
	for before := windowBefore; ; before *= 4 {
		from, to := runeStart(text, max(0, end-before)), runeStart(text, min(len(text), end+windowAfter))
		Counters.windowed.Add(int64(to - from))
		reached := false // a match in the window ends at end or later, or runs past it
		for _, m := range re.FindAllStringSubmatchIndex(text[from:to], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += from
				}
			}
			// A match at the window's start may begin before it; one near
			// its end may be one a longer text would make longer (an
			// optional ".pub" cut off): both are judged in a later window.
			if m[0] == from && from > 0 || m[1] > to-windowMargin && to < len(text) {
				reached = reached || m[1] >= end
				continue
			}
			if m[1] >= end {
				reached = true
			}
			if m[0] < ps.lastEnd || m[1] <= ps.examined && ps.examined > 0 {
				continue // judged before
			}
			ps.tries++
			ps.lastEnd = m[1]
			if in, ok := k.judge(text, m, kind); ok {
				ps.found = &in
				break
			}
			if ps.tries >= triesPerPattern {
				break
			}
		}
		if reached || from == 0 || ps.found != nil || ps.tries >= triesPerPattern {
			ps.examined = to // every match ending before it was judged
			if to < len(text) {
				ps.examined = to - windowMargin
			}
			return
		}
	}
}

// judge decides whether match m of one of the kind's patterns shows it.
func (k *instructionKind) judge(text string, m []int, kind int) (Instruction, bool) {
	if quotedMention(text, m[0], m[1]) {
		return Instruction{}, false
	}
	ev := strings.TrimSpace(text[m[0]:m[1]])
	if k.evidence != nil {
		var ok bool
		if ev, ok = k.evidence(text, m); !ok {
			return Instruction{}, false
		}
	}
	return Instruction{Kind: k.label, Evidence: ev, kind: kind}, true
}

// passiveBefore reports passive.MatchString(text[:at]) reading only the
// tail it can match: the white space before at and the few runes before
// that, not the whole text once a match.
func passiveBefore(text string, at int) bool {
	space := at
	for space > 0 && strings.IndexByte("\t\n\f\r ", text[space-1]) >= 0 {
		space--
	}
	if space == at {
		return false
	}
	// The longest word is five runes ("being"); eight keep the rune before
	// it, which its word boundary reads.
	from := space
	for n := 0; n < 8 && from > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	return passive.MatchString(text[from:at])
}

// runeStart moves i forward to the start of a rune, so that a window does
// not begin or end inside one.
func runeStart(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// quotedMention reports a match that is quoted whole: a description that
// names a phrase ("detects 'ignore previous instructions'") mentions it
// rather than says it.
func quotedMention(text string, start, end int) bool {
	open, n := utf8.DecodeLastRuneInString(text[:start])
	if n == 0 {
		return false
	}
	closing, m := utf8.DecodeRuneInString(text[end:])
	if m == 0 {
		return false
	}
	switch open {
	case '"', '\'', '`':
		return closing == open
	case '“':
		return closing == '”'
	case '‘':
		return closing == '’'
	case '«':
		return closing == '»'
	}
	return false
}

func (pt *Text) hasKind(kind int) bool {
	return slices.ContainsFunc(pt.Instructions, func(in Instruction) bool { return in.kind == kind })
}

// Kinds names the kinds of instruction Inspect finds, in the order a Text
// lists them.
func Kinds() []string {
	out := make([]string, len(instructionKinds))
	for i, k := range instructionKinds {
		out[i] = k.label
	}
	return out
}

// MayInstruct reports whether text holds a word some instruction pattern
// needs; text without one has no instruction Inspect would find.
func MayInstruct(text []byte) bool {
	return mayInstructText(unsafe.String(unsafe.SliceData(text), len(text)))
}

// Counters count the work of the instruction search, for the budget
// tests.
var Counters counters

type counters struct{ inspected, patterned, windowed atomic.Int64 }

// Snapshot returns the bytes looked at, the bytes the patterns' automata
// ran over and the bytes their regexps ran over (windows around the
// automata's matches), so far.
func (c *counters) Snapshot() (inspected, patterned, windowed int64) {
	return c.inspected.Load(), c.patterned.Load(), c.windowed.Load()
}

// mayInstructWords are mayInstruct's alternatives as lower-case ASCII
// words, by first byte.
var mayInstructWords = func() (t [256][]string) {
	for _, w := range []string{"ignor", "disregard", "forget", "overrid", "bypass", "tell", "inform", "mention", "reveal", "disclos",
		"keep", "hide", "user", "<", "[", ".ssh", "id_", ".aws", "netrc", "credentials", "docker", "kube", "shadow", "gnupg", "gcloud",
		"mcp.json", "npmrc", "pypirc", ".env", "passwd", "http:", "https:", "@"} {
		t[w[0]] = append(t[w[0]], w)
	}
	return t
}()

// mayInstructText is mayInstruct.MatchString(s) at the speed of a byte
// loop: the automaton reads a long description at about a megabyte a
// second. Case is folded as (?i) folds it; the only runes outside ASCII
// that fold to an ASCII letter are the Kelvin sign (k) and the long s (s),
// and text with one of them is left to the automaton.
// TestMayInstructTextIsTheAutomaton holds the two together.
func mayInstructText(s string) bool {
	if strings.Contains(s, "\u212a") || strings.Contains(s, "\u017f") {
		return mayInstruct.MatchString(s)
	}
	for i := 0; i < len(s); i++ {
		for _, w := range mayInstructWords[lowerASCII(s[i])] {
			if hasPrefixFoldASCII(s[i:], w) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFoldASCII reports whether s starts with the lower-case word w
// in any ASCII case.
func hasPrefixFoldASCII(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := 1; j < len(w); j++ {
		if lowerASCII(s[j]) != w[j] {
			return false
		}
	}
	return true
}

// Skeleton folds a tool name into what it looks like: compatibility forms
// (fullwidth, mathematical letters) to their base, accents dropped, look-alike Cyrillic and
// Greek letters to Latin, I, 1 and | to l, 0 to o, rn to m, hidden characters
// dropped, and case ignored. Two names with one skeleton read the same.
func Skeleton(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(name) {
		switch {
		case isTag(r) || isZeroWidth(r) || isBidi(r) || unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Mn, r):
			continue
		case r == 'I' || r == '1' || r == '|':
			b.WriteByte('l')
		case r == '0':
			b.WriteByte('o')
		default:
			if l, ok := lookAlike[r]; ok {
				r = l
			}
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return strings.ReplaceAll(b.String(), "rn", "m")
}

// lookAlike maps letters of other scripts to the Latin letter they are drawn
// like (after NFKD).
var lookAlike = map[rune]rune{
	// Cyrillic
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j',
	'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'ӏ': 'l',
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't',
	'Х': 'x', 'У': 'y', 'Ѕ': 's', 'І': 'l', 'Ј': 'j', 'Ү': 'y', 'Ԛ': 'q', 'Ԝ': 'w',
	// Greek
	'α': 'a', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'υ': 'u', 'ι': 'i', 'κ': 'k', 'χ': 'x', 'ϲ': 'c', 'γ': 'y',
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'l', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o',
	'Ρ': 'p', 'Τ': 't', 'Υ': 'y', 'Χ': 'x',
	// Latin letters drawn like others
	'ı': 'i', 'ȷ': 'j', 'ɑ': 'a', 'ɡ': 'g', 'ɩ': 'i', 'ʏ': 'y', 'ℓ': 'l',
}
