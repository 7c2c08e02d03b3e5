// Package secrets recognises credential-shaped text: vendor tokens by their
// published formats, private key blocks, JWTs, bearer tokens, passwords in
// URLs, and high-entropy values under secret-named keys. The secret-leak
// rule reports them; every finding's message is masked with it, so no
// report prints a secret.
//
// Every check is a byte loop over the text with a table of the bytes that
// can start a pattern: no regular expression runs on capture data, and
// Suspect, the cheap first look, allocates nothing.
package secrets

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Kind is what a credential-shaped value looks like.
type Kind uint8

const (
	AWSAccessKeyID Kind = iota + 1
	GoogleAPIKey
	GitHubToken
	GitLabToken
	SlackToken
	SlackWebhook
	StripeKey
	OpenAIKey
	AnthropicKey
	PrivateKey
	JWT
	// The generic shapes below lose to a vendor format on the same text.
	BearerToken
	URLPassword
	NamedSecret // a high-entropy value of a secret-named key or assignment
	numKinds
)

var kindNames = [numKinds]string{
	"", "AWS access key ID", "Google API key", "GitHub token", "GitLab token",
	"Slack token", "Slack webhook URL", "Stripe secret key", "OpenAI API key",
	"Anthropic API key", "private key block", "JWT", "bearer token",
	"password in URL", "secret value",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "secret"
}

// Kinds lists every kind, vendor formats first.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds-1)
	for k := Kind(1); k < numKinds; k++ {
		out = append(out, k)
	}
	return out
}

func (k Kind) generic() bool { return k >= BearerToken }

// Match is one credential-shaped value: text[Start:End] is the secret
// itself (for a bearer token or an assignment, without the word before it).
type Match struct {
	Kind       Kind
	Start, End int
}

// Hash is the short hash a report shows instead of a secret: the first
// eight hex digits of its SHA-256, enough to recognise a known credential
// and useless to recover it.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:4])
}

// Label is what a report shows in place of a secret of kind k.
func Label(k Kind, secret string) string {
	return "[" + k.String() + " sha256:" + Hash(secret) + "]"
}

// Mask replaces every credential-shaped value in s with its kind and hash:
// "[GitHub token sha256:1a2b3c4d]".
func Mask(s string) string {
	ms := Find(s)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.Start])
		b.WriteString(Label(m.Kind, s[m.Start:m.End]))
		last = m.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// Find returns the credential-shaped values of s in order, without
// overlaps: where a vendor format and a generic shape cover the same text,
// the vendor format wins.
func Find(s string) []Match {
	var ms []Match
	for i := 0; i+1 < len(s); i++ {
		if !trigger[s[i]] || !pairs[s[i]][s[i+1]] {
			continue
		}
		if m, ok := matchAt(s, i); ok {
			ms = append(ms, m)
		}
	}
	if len(ms) < 2 {
		return ms
	}
	slices.SortStableFunc(ms, func(a, b Match) int { return a.Start - b.Start })
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			prev := &out[n-1]
			if prev.Kind.generic() && !m.Kind.generic() {
				*prev = m // the vendor format names it better
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// Suspect is the cheap first look at raw bytes (a JSON payload, a stderr
// line): false means Find finds nothing in any string inside, and no member
// of a JSON object has a secret-named key. True only asks for a closer look.
//
// It is a prefilter in two stages, as credential scanners do it. The
// first reads the text two bytes at a time, at even offsets, thirty-two
// bytes a step with one branch, and looks each pair up in a table of the
// pairs that some pattern's start implies at a fixed distance (the "AK"
// of AKIA, the "t-" of glagent-, the "EG" of -----BEGIN, any pair with a
// ':' or '=', …). Only around a pair it knows does the second run: the
// loose check of each pattern start (suspectAt) at the distances the
// pair implies. In ordinary text and JSON most steps hold no such pair,
// so most bytes cost half a table lookup.
func Suspect[T ~string | ~[]byte](b T) bool {
	// A string and a slice begin with the same pointer and length: one
	// implementation reads both without a copy.
	return suspect(*(*string)(unsafe.Pointer(&b)))
}

func suspect(s string) bool {
	blocks, found := pairStage(s)
	Counters.suspectCalls.Add(1)
	Counters.suspectBytes.Add(int64(len(s)))
	Counters.blocks.Add(blocks)
	return found
}

// pairStage is Suspect's two stages over s; blocks counts the steps of
// eight bytes it looked at closely.
func pairStage(s string) (blocks int64, found bool) {
	t := anchors
	// Thirty-two bytes a step: sixteen lookups and one branch, so that the
	// loop's own instructions are few beside the lookups. The step is read
	// through a pointer, not a slice of s, so the loop has no bounds
	// checks: its condition already holds the step inside s.
	data := unsafe.Pointer(unsafe.StringData(s))
	i := 0
	for ; i+32 <= len(s); i += 32 {
		w := (*[32]byte)(unsafe.Add(data, i))
		a := t[pairOf(w, 0)] | t[pairOf(w, 2)] | t[pairOf(w, 4)] | t[pairOf(w, 6)]
		b := t[pairOf(w, 8)] | t[pairOf(w, 10)] | t[pairOf(w, 12)] | t[pairOf(w, 14)]
		c := t[pairOf(w, 16)] | t[pairOf(w, 18)] | t[pairOf(w, 20)] | t[pairOf(w, 22)]
		d := t[pairOf(w, 24)] | t[pairOf(w, 26)] | t[pairOf(w, 28)] | t[pairOf(w, 30)]
		if a|b|c|d == 0 {
			continue
		}
		// Some pair of the step is known: the second stage looks at the
		// eight bytes that hold one, as few as most steps with a pair have.
		n, found := closerStep(s, i, w, a, b, c, d)
		blocks += n
		if found {
			return blocks, true
		}
	}
	// The last bytes, eight at a time.
	for ; i+8 <= len(s); i += 8 {
		block := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(data, i))[:])
		if known(t, block) {
			blocks++
			if closer(s, i, block) {
				return blocks, true
			}
		}
	}
	rest := len(s) - i
	if rest == 0 {
		return blocks, false
	}
	if i >= 8 {
		// Fewer than eight bytes left after some: the eight bytes that end
		// with them, from an even offset, so the pairs stay at even offsets
		// (the earlier ones are looked at again, which changes no answer).
		j := i - 8 + rest&^1
		block := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(data, j))[:])
		if known(t, block) {
			blocks++
			if closer(s, j, block) {
				return blocks, true
			}
		}
		if rest&1 == 0 {
			return blocks, false
		}
		i = len(s) - 1 // an odd last byte: its pair is with the padding
	}
	// The last bytes padded with zeros: no pattern needs a zero, and a
	// pair a pattern implies starts with a byte of the text, so the pairs
	// the padding makes imply only starts pairAt turns away.
	var block uint64
	for k := len(s) - 1; k >= i; k-- {
		block = block<<8 | uint64(s[k])
	}
	if known(t, block) {
		blocks++
		if closer(s, i, block) {
			return blocks, true
		}
	}
	return blocks, false
}

// closerStep is the second stage over a step w at s[i:] whose four
// eight-byte blocks have a, b, c and d as the entries of their pairs
// ORed: it looks closely at those with a known pair.
func closerStep(s string, i int, w *[32]byte, a, b, c, d uint32) (blocks int64, found bool) {
	if a != 0 {
		blocks++
		if closer(s, i, binary.LittleEndian.Uint64(w[0:8])) {
			return blocks, true
		}
	}
	if b != 0 {
		blocks++
		if closer(s, i+8, binary.LittleEndian.Uint64(w[8:16])) {
			return blocks, true
		}
	}
	if c != 0 {
		blocks++
		if closer(s, i+16, binary.LittleEndian.Uint64(w[16:24])) {
			return blocks, true
		}
	}
	if d != 0 {
		blocks++
		if closer(s, i+24, binary.LittleEndian.Uint64(w[24:32])) {
			return blocks, true
		}
	}
	return blocks, false
}

// pairOf is the two bytes at w[p:] as the first stage's table indexes
// them: a little-endian uint16.
func pairOf(w *[32]byte, p int) uint16 { return uint16(w[p]) | uint16(w[p+1])<<8 }

// known reports whether the table knows a pair of the eight bytes in
// block, read as a little-endian word.
func known(t *pairAnchors, block uint64) bool {
	return t[uint16(block)]|t[uint16(block>>16)]|t[uint16(block>>32)]|t[uint16(block>>48)] != 0
}

// closer looks closely at the pattern starts that the pairs of the eight
// bytes at s[i:], read as a little-endian word, imply. It gathers them
// first, so a start two pairs imply is checked once.
func closer(s string, i int, block uint64) bool {
	t := anchors
	// bit k: a start at i+k-startBack. Written out, the shifts are
	// constants.
	starts := t.startsOf(block) | t.startsOf(block>>16)<<2 | t.startsOf(block>>32)<<4 | t.startsOf(block>>48)<<6
	for ; starts != 0; starts &= starts - 1 {
		// The loose check of the start, written out: most starts a pair
		// implies are turned away by the two bytes there, without a call.
		t := i + bits.TrailingZeros64(starts) - startBack
		if t < 0 || t+1 >= len(s) {
			continue
		}
		if c := s[t]; c == ':' || c == '=' {
			if separatorAt(s, t) {
				return true
			}
		} else if pairAt(s, t) && suspectAt(s, t) {
			return true
		}
	}
	return false
}

// separatorAt is the loose check of a start at a ':' or '=' (t+1 <
// len(s)), as suspectAt's. The commonest start by far is
// the colon of a JSON member: when no URL follows it, only the name before
// it can make it suspect, as in suspectAt, and most names are judged by
// their last three letters.
func separatorAt(s string, t int) bool {
	if s[t] == ':' && (s[t+1] == '/' || s[t+1] == '\\') {
		return suspectAt(s, t)
	}
	Counters.closer.Add(1)
	if t >= 4 && s[t-1] == '"' && alnum[s[t-2]] && alnum[s[t-3]] && alnum[s[t-4]] {
		return secretEnds.has(s[t-4], s[t-3], s[t-2]) && secretNameBefore(s, t)
	}
	return secretNameBefore(s, t)
}

// secretNameBefore reports whether a secret's name is before a ':' or
// '=' at i.
func secretNameBefore(s string, i int) bool {
	_, ok := nameBefore(s, i)
	return ok
}

// pairAnchors is the first stage's table, indexed by two bytes as a
// little-endian uint16: bit startBack-d of an entry is set when a pattern
// may start d bytes before the pair, so that its bits, shifted by the
// pair's offset, are offsets of starts. An entry is a uint32, not an index
// into a set of them, so the first stage's lookup is one instruction with
// the OR that gathers it (256 KiB, of which text touches few lines).
type pairAnchors [1 << 16]uint32

// startsOf is the entry of the pair in the low two bytes of w.
func (t *pairAnchors) startsOf(w uint64) uint64 { return uint64(t[uint16(w)]) }

// startBack is the farthest a pattern may start before its pair: an entry
// holds distances from startBack-31 to startBack.
const startBack = 23

var anchors = newPairAnchors(patternStarts)

// newPairAnchors chooses, for each pattern start and each parity of the
// offset it is at, the pair inside it (or just around it: the byte before
// a start at an odd offset is in the text, and so is the byte after its
// last, or the padding) that ordinary text holds least often, and marks
// every byte pair of that choice with its distance to the start.
func newPairAnchors(ps []patternStart) *pairAnchors {
	t := new(pairAnchors)
	for _, p := range ps {
		sets := append(append([]string{anyByte}, p.sets...), anyByte)
		for parity := range 2 {
			best, bestCost := 0, math.Inf(1)
			// sets[k] is at t+p.from+k-1; the pair at k must sit at an even
			// offset when t+p.from has this parity.
			for k := 1 - parity; k+1 < len(sets); k += 2 {
				if c := pairCost(sets[k], sets[k+1]); c < bestCost {
					best, bestCost = k, c
				}
			}
			d := best - 1 + p.from
			if d > startBack || d < startBack-31 {
				panic("secrets: a pattern starts too far from its pair")
			}
			for a := 0; a < len(sets[best]); a++ {
				for b := 0; b < len(sets[best+1]); b++ {
					t[uint16(sets[best][a])|uint16(sets[best+1][b])<<8] |= 1 << (startBack - d)
				}
			}
		}
	}
	return t
}

// pairCost is how often ordinary text holds a byte of a followed by one
// of b, roughly: the product of the bytes' shares, more for pairs of
// letters, the ends of words and most for the commonest pairs of English
// letters (in either case). It only steers the choice of anchors, never
// the answer.
func pairCost(a, b string) float64 {
	c := setWeight(a) * setWeight(b)
	x, y := lower(a[0]), lower(b[0])
	switch {
	case slices.Contains(commonPairs, string([]byte{x, y})):
		c *= 6
	case isLetter(x) && y == ' ', x == ' ' && isLetter(y):
		c *= 4 // the ends of words
	case isLetter(x) && isLetter(y):
		c *= 3 // the letters of words are not independent
	}
	return c
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' }

func setWeight(set string) float64 {
	w := 0.0
	for i := 0; i < len(set); i++ {
		w += byteWeight(set[i])
	}
	return w
}

// byteWeight is a byte's share of ordinary text and JSON, in percent:
// letters by their English frequencies.
func byteWeight(c byte) float64 {
	switch {
	case c >= 'a' && c <= 'z':
		return 0.8 * letterShare[c-'a']
	case c == ' ':
		return 15
	case c >= 'A' && c <= 'Z':
		return 0.3
	case c >= '0' && c <= '9', c == '.', c == '/', c == '_', c == '-':
		return 0.5
	case c == '"', c == ':', c == ',':
		return 2
	}
	return 0.1
}

// letterShare is each letter's share of English text, in percent.
var letterShare = [26]float64{8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.8, 4.0, 2.4,
	6.7, 7.5, 1.9, 0.1, 6.0, 6.3, 9.1, 2.8, 1.0, 2.4, 0.15, 2.0, 0.07}

var commonPairs = strings.Fields("th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce")

// anyByte is the set of every byte.
var anyByte = func() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}()

// pairAt reports whether a pattern can start at s[i] (i+1 < len(s)).
func pairAt(s string, i int) bool { return startPair(s[i], s[i+1])&1 != 0 }

// startPair has its lowest bit set when a pattern can start at a byte a
// followed by b; its other bits are noise.
func startPair(a, b byte) uint64 {
	p := uint(a)<<8 | uint(b)
	return startPairs[p>>6] >> (p & 63)
}

// startPairs is trigger and pairs as one bitset indexed by two bytes: bit
// a<<8|b is set when a pattern can start at a byte a followed by b. 8 KiB,
// so it stays in the first-level cache.
var startPairs = func() (t [1 << 16 / 64]uint64) {
	for a := 0; a < 256; a++ {
		for b := 0; b < 256; b++ {
			if trigger[a] && pairs[a][b] {
				p := a<<8 | b
				t[p>>6] |= 1 << (p & 63)
			}
		}
	}
	return t
}()

// Counters count the prefilter's work, for the budget tests.
var Counters counters

type counters struct{ suspectCalls, suspectBytes, blocks, closer atomic.Int64 }

// Work is what the prefilter did: calls of Suspect, bytes it scanned,
// steps of eight bytes its second stage looked at, and positions where
// that stage checked a pattern's start (suspectAt).
type Work struct{ Calls, Bytes, Blocks, Closer int64 }

// Snapshot returns the counts so far.
func (c *counters) Snapshot() Work {
	return Work{c.suspectCalls.Load(), c.suspectBytes.Load(), c.blocks.Load(), c.closer.Load()}
}

// trigger marks the bytes a pattern is looked for at: where it starts, or
// a rarer byte inside it where the start is a common letter (the k of sk_,
// the dot before a JWT's payload or in hooks.slack.com), or the ':' or '='
// after a name. Common letters are passed over at one table lookup.
var trigger = func() (t [256]bool) {
	for _, c := range "Agxk-.Bb:=" {
		t[c] = true
	}
	return t
}()

// pairs marks each trigger byte with the byte that follows it in a
// pattern, so that most trigger bytes of ordinary text are passed over after
// two table lookups.
var pairs = func() (t [256][256]bool) {
	for _, p := range []string{"AK", "AS", "AB", "AC", "AI", "gh", "gi", "gl", "xo", "xa", "k_", "k-", "--", ".e", ".s"} {
		t[p[0]][p[1]] = true
	}
	for _, c := range "eE" {
		t['B'][c], t['b'][c] = true, true
	}
	for c := 0; c < 256; c++ {
		t[':'][c], t['='][c] = true, true
	}
	return t
}()

const b64urlBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// Character classes.
var (
	alnum   = class("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
	upperD  = class("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	b64url  = class(b64urlBytes)
	slackC  = class("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
	patC    = class("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
	hookC   = class("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/")
	bearerC = class("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
	pemC    = class("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\r\n\\")
	identC  = class("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
)

type charClass [256]bool

func class(chars string) (c charClass) {
	for i := 0; i < len(chars); i++ {
		c[chars[i]] = true
	}
	return c
}

// run returns the end of the run of class bytes that starts at i.
func run[T ~string | ~[]byte](b T, i int, c *charClass) int {
	for i < len(b) && c[b[i]] {
		i++
	}
	return i
}

func at[T ~string | ~[]byte](b T, i int, p string) bool {
	if len(b)-i < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if b[i+j] != p[j] {
			return false
		}
	}
	return true
}

// atFold is at for an ASCII prefix in any case.
func atFold[T ~string | ~[]byte](b T, i int, p string) bool {
	if len(b)-i < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if lower(b[i+j]) != p[j] {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// wordStart reports that a token at i is not the tail of a longer word.
func wordStart[T ~string | ~[]byte](b T, i int) bool { return i == 0 || !alnum[b[i-1]] }

func anyAt[T ~string | ~[]byte](b T, i int, ps ...string) int {
	for _, p := range ps {
		if at(b, i, p) {
			return len(p)
		}
	}
	return 0
}

var (
	awsPrefixes    = []string{"AKIA", "ASIA", "ABIA", "ACCA"}
	gitlabPrefixes = []string{"glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-"}
	stripePrefixes = []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}
	openAIPrefixes = []string{"sk-proj-", "sk-svcacct-", "sk-admin-"}
)

// A patternStart is what suspectAt needs around a start t to be true:
// sets[k] holds the bytes it allows at t+from+k. The first stage finds
// starts by these; TestAnchorsCoverEveryStart holds them to suspectAt.
type patternStart struct {
	from int
	sets []string
}

// literal is a start that needs the bytes of s from t+from on.
func literal(from int, s string) patternStart {
	sets := make([]string, len(s))
	for i := range s {
		sets[i] = s[i : i+1]
	}
	return patternStart{from, sets}
}

var patternStarts = func() []patternStart {
	var ps []patternStart
	for _, p := range append(append(slices.Clone(awsPrefixes), "AIza", "github_pat_", "xox", "xapp-", "-----BEGIN ", ":", "="), gitlabPrefixes...) {
		ps = append(ps, literal(0, p))
	}
	for _, c := range "pousr" {
		ps = append(ps, literal(0, "gh"+string(c)+"_"))
	}
	for _, p := range append(slices.Clone(stripePrefixes), "sk-") {
		ps = append(ps, literal(-1, p)) // at the k
	}
	ps = append(ps, literal(-5, "hooks.slack.com/"))
	// A JWT's payload after a header of base64url.
	ps = append(ps, patternStart{-1, []string{b64urlBytes, ".", "e", "y", "J"}})
	ps = append(ps, patternStart{0, []string{"bB", "eE", "aA", "rR", "eE", "rR", " \t"}})
	return ps
}()

// suspectAt is the loose look of Suspect: a pattern's start, or a
// secret-named key before ':' or '='.
func suspectAt[T ~string | ~[]byte](b T, i int) bool {
	Counters.closer.Add(1)
	switch b[i] {
	case 'A':
		return wordStart(b, i) && (anyAt(b, i, awsPrefixes...) > 0 || at(b, i, "AIza"))
	case 'g':
		return wordStart(b, i) && (at(b, i, "github_pat_") || at(b, i, "gh") && len(b) > i+3 && strings.IndexByte("pousr", b[i+2]) >= 0 && b[i+3] == '_' ||
			anyAt(b, i, gitlabPrefixes...) > 0)
	case 'x':
		return wordStart(b, i) && (at(b, i, "xox") || at(b, i, "xapp-"))
	case 'k':
		return i > 0 && (b[i-1] == 's' || b[i-1] == 'r') && wordStart(b, i-1) && (anyAt(b, i-1, stripePrefixes...) > 0 || at(b, i-1, "sk-"))
	case '-':
		return at(b, i, "-----BEGIN ")
	case '.':
		if at(b, i, ".eyJ") {
			start := i
			for start > 0 && i-start <= maxJWTHeader && b64url[b[start-1]] {
				start--
			}
			return i-start >= 10 && i-start <= maxJWTHeader && at(b, start, "eyJ")
		}
		return i >= 5 && at(b, i-5, "hooks.slack.com/")
	case 'B', 'b':
		return atFold(b, i, "bearer") && len(b) > i+6 && (b[i+6] == ' ' || b[i+6] == '\t') && (i == 0 || !alnum[b[i-1]])
	case ':':
		if at(b, i, "://") {
			_, _, ok := urlPassword(b, i)
			return ok
		}
		if at(b, i, `:\/\/`) {
			return true // a URL in JSON that escapes its slashes: decoded, it may have a password
		}
		_, ok := nameBefore(b, i)
		return ok
	case '=':
		_, ok := nameBefore(b, i)
		return ok
	}
	return false
}

// matchAt is the full check of the pattern that may start at s[i].
func matchAt(s string, i int) (Match, bool) {
	switch s[i] {
	case 'A':
		if !wordStart(s, i) {
			break
		}
		if anyAt(s, i, awsPrefixes...) > 0 {
			end := run(s, i+4, &upperD)
			if end-i == 20 && (end == len(s) || !alnum[s[end]]) {
				return token(s, AWSAccessKeyID, i, end, i+4)
			}
		}
		if at(s, i, "AIza") {
			if end := run(s, i+4, &b64url); end-i == 39 {
				return token(s, GoogleAPIKey, i, end, i+4)
			}
		}
	case 'g':
		if !wordStart(s, i) {
			break
		}
		if at(s, i, "github_pat_") {
			if end := run(s, i+11, &patC); end-i-11 >= 22 {
				return token(s, GitHubToken, i, end, i+11)
			}
		}
		if len(s) > i+3 && s[i+1] == 'h' && strings.IndexByte("pousr", s[i+2]) >= 0 && s[i+3] == '_' {
			if end := run(s, i+4, &alnum); end-i-4 >= 36 && end-i-4 <= 251 {
				return token(s, GitHubToken, i, end, i+4)
			}
		}
		if n := anyAt(s, i, gitlabPrefixes...); n > 0 {
			if end := run(s, i+n, &b64url); end-i-n >= 20 {
				return token(s, GitLabToken, i, end, i+n)
			}
		}
	case 'x':
		if !wordStart(s, i) {
			break
		}
		if len(s) > i+4 && at(s, i, "xox") && strings.IndexByte("abposr", s[i+3]) >= 0 && s[i+4] == '-' {
			if end := run(s, i+5, &slackC); end-i-5 >= 10 && strings.ContainsAny(s[i+5:end], "0123456789") {
				return token(s, SlackToken, i, end, i+5)
			}
		}
		if len(s) > i+6 && at(s, i, "xapp-") && s[i+5] >= '0' && s[i+5] <= '9' && s[i+6] == '-' {
			if end := run(s, i+7, &slackC); end-i-7 >= 10 {
				return token(s, SlackToken, i, end, i+7)
			}
		}
	case 'k':
		if i == 0 || s[i-1] != 's' && s[i-1] != 'r' || !wordStart(s, i-1) {
			break
		}
		i-- // the pattern starts at the s or r
		if n := anyAt(s, i, stripePrefixes...); n > 0 {
			if end := run(s, i+n, &alnum); end-i-n >= 16 {
				return token(s, StripeKey, i, end, i+n)
			}
		}
		if at(s, i, "sk-ant-") {
			if end := run(s, i+7, &b64url); end-i-7 >= 32 {
				return token(s, AnthropicKey, i, end, i+7)
			}
		}
		if n := anyAt(s, i, openAIPrefixes...); n > 0 {
			if end := run(s, i+n, &b64url); end-i-n >= 20 {
				return token(s, OpenAIKey, i, end, i+n)
			}
		}
		if at(s, i, "sk-") {
			end := run(s, i+3, &alnum)
			if n := end - i - 3; (n == 48 || n >= 32 && strings.Contains(s[i+3:end], "T3BlbkFJ")) && (end == len(s) || !b64url[s[end]]) {
				return token(s, OpenAIKey, i, end, i+3)
			}
		}
	case '-':
		if end, ok := privateKeyBlock(s, i); ok {
			return Match{PrivateKey, i, end}, true
		}
	case '.':
		if start, end, ok := jwt(s, i); ok {
			return Match{JWT, start, end}, true
		}
		if i >= 5 && at(s, i-5, "hooks.slack.com/services/") {
			end := run(s, i+20, &hookC)
			if path := s[i+20 : end]; len(path) >= 20 && strings.Count(path, "/") >= 2 && path[0] == 'T' {
				return Match{SlackWebhook, i - 5, end}, true
			}
		}
	case 'B', 'b':
		if atFold(s, i, "bearer") && (i == 0 || !alnum[s[i-1]]) {
			if start, end, ok := bearer(s, i+6); ok {
				return Match{BearerToken, start, end}, true
			}
		}
	case ':':
		if at(s, i, "://") {
			if start, end, ok := urlPassword(s, i); ok {
				return Match{URLPassword, start, end}, true
			}
			break
		}
		return assignment(s, i)
	case '=':
		return assignment(s, i)
	}
	return Match{}, false
}

// token accepts a vendor token whose random part starts at body unless it
// is a documentation placeholder ("ghp_xxxxxxxx…"): a real one has many
// distinct characters.
func token(s string, k Kind, start, end, body int) (Match, bool) {
	if distinct(s[body:end]) < 8 {
		return Match{}, false
	}
	return Match{k, start, end}, true
}

func distinct(s string) int {
	var seen [256]bool
	n := 0
	for i := 0; i < len(s); i++ {
		if !seen[s[i]] {
			seen[s[i]] = true
			n++
		}
	}
	return n
}

// privateKeyBlock matches "-----BEGIN … PRIVATE KEY-----" with a key body
// after it (a header named in prose is not a key).
func privateKeyBlock(s string, i int) (int, bool) {
	if !at(s, i, "-----BEGIN ") {
		return 0, false
	}
	j := i + len("-----BEGIN ")
	labelEnd := strings.Index(s[j:min(len(s), j+40)], "-----")
	if labelEnd < 0 {
		return 0, false
	}
	label := s[j : j+labelEnd]
	if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return 0, false
	}
	j += labelEnd + 5
	// The body: a run of base64 lines (escaped line breaks included),
	// after optional header lines such as Proc-Type.
	limit := min(len(s), j+512)
	best, end := 0, j
	for k := j; k < limit; {
		e := run(s, k, &pemC)
		if n := e - k; n > best {
			best, end = n, e
		}
		if e == k {
			e++
		}
		k = e
	}
	if best < 40 {
		return 0, false
	}
	if f := strings.Index(s[end:min(len(s), end+8<<10)], "-----END "); f >= 0 {
		if g := strings.Index(s[end+f+9:min(len(s), end+f+60)], "-----"); g >= 0 {
			end = end + f + 9 + g + 5
		}
	}
	return end, true
}

// maxJWTHeader bounds the look back from a payload to its header, so that
// long base64url text costs no more than a pass.
const maxJWTHeader = 1024

// jwt matches header.payload.signature, given the dot before the payload,
// whose header decodes to a JSON object with "alg".
func jwt(s string, dot int) (int, int, bool) {
	if !at(s, dot, ".eyJ") {
		return 0, 0, false
	}
	i := dot
	for i > 0 && dot-i <= maxJWTHeader && b64url[s[i-1]] {
		i--
	}
	if dot-i < 10 || dot-i > maxJWTHeader || !at(s, i, "eyJ") {
		return 0, 0, false
	}
	p := run(s, dot+1, &b64url)
	if p-dot-1 < 10 || p >= len(s) || s[p] != '.' {
		return 0, 0, false
	}
	sig := run(s, p+1, &b64url)
	if sig-p-1 < 16 || sig < len(s) && (s[sig] == '.' || s[sig] == '=') {
		return 0, 0, false
	}
	header, err := base64.RawURLEncoding.DecodeString(s[i:dot])
	if err != nil || len(header) == 0 || header[0] != '{' || !strings.Contains(string(header), `"alg"`) {
		return 0, 0, false
	}
	return i, sig, true
}

// bearer matches the credential after the word Bearer (i is just past it):
// random-looking, never the parameters of a WWW-Authenticate challenge.
func bearer(s string, i int) (int, int, bool) {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j == i {
		return 0, 0, false
	}
	end := run(s, j, &bearerC)
	for end < len(s) && s[end] == '=' {
		end++
	}
	tok := s[j:end]
	if len(tok) < 16 || len(tok) > 8192 || !strings.ContainsAny(tok, "0123456789") || !hasLetter(tok) || entropy(tok) < 3.0 {
		return 0, 0, false
	}
	return j, end, true
}

// urlPassword finds the password of scheme://user:password@host; i is at
// "://".
func urlPassword[T ~string | ~[]byte](b T, i int) (int, int, bool) {
	start := i + 3
	colon := -1
	for j := start; j < len(b) && j < start+256; j++ {
		switch c := b[j]; c {
		case '@':
			if colon < 0 { // a user name alone is no secret
				return 0, 0, false
			}
			if plausiblePassword(string(b[colon+1:j]), true) {
				return colon + 1, j, true
			}
			return 0, 0, false
		case ':':
			if colon < 0 {
				colon = j
			}
		case '/', '?', '#', ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '\\':
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// nameBefore reads the name before a ':' or '=' at i: an identifier,
// perhaps quoted ("api_key": …, API_KEY=…), that names a secret.
func nameBefore[T ~string | ~[]byte](b T, i int) (password, ok bool) {
	j := i
	for j > 0 && b[j-1] == ' ' {
		j--
	}
	if j > 0 && (b[j-1] == '"' || b[j-1] == '\'') {
		j--
	}
	if !endsLikeSecretName(b, j) {
		return false, false // most names: decided by their last three letters
	}
	k := j
	for k > 0 && j-k < 64 && identC[b[k-1]] {
		k--
	}
	if k == j || k > 0 && identC[b[k-1]] {
		return false, false // no name, or longer than any secret name
	}
	return secretName(b[k:j])
}

// endsLikeSecretName reports whether the name that ends at j (the
// identifier nameBefore reads, at most 64 bytes back) may name a secret:
// its last three letters or digits, as secretName normalises them, end
// one of the secret names. False means secretName says no; it is the
// cheap answer for the member names of every JSON object, which it reads
// from the end and stops after three.
func endsLikeSecretName[T ~string | ~[]byte](b T, j int) bool {
	if j >= 3 && alnum[b[j-1]] && alnum[b[j-2]] && alnum[b[j-3]] {
		return secretEnds.has(b[j-3], b[j-2], b[j-1]) // most names end in three letters
	}
	var last [3]byte
	n := 0
	for k := j; k > 0 && j-k < 64 && n < len(last); k-- {
		c := b[k-1]
		if !identC[c] {
			break
		}
		if alnum[c] {
			n++
			last[len(last)-n] = c
		}
	}
	return n == len(last) && secretEnds.has(last[0], last[1], last[2])
}

// suffixSet holds three-byte endings, each byte by its low five bits: a
// letter's place in the alphabet in either case. A digit shares its bits
// with a letter, which only lets more names through to the full check.
type suffixSet [1 << 15 / 64]uint64

func (t *suffixSet) add(a, b, c byte) {
	i := suffixIndex(a, b, c)
	t[i>>6] |= 1 << (i & 63)
}

func (t *suffixSet) has(a, b, c byte) bool {
	i := suffixIndex(a, b, c)
	return t[i>>6]>>(i&63)&1 != 0
}

func suffixIndex(a, b, c byte) uint { return uint(a&31)<<10 | uint(b&31)<<5 | uint(c&31) }

// secretEnds are the last three bytes of every secret name.
var secretEnds = func() (t suffixSet) {
	for _, names := range [][]string{passwordNames, secretNames, keyNames} {
		for _, s := range names {
			n := len(s)
			t.add(s[n-3], s[n-2], s[n-1])
		}
	}
	return t
}()

// assignment matches NAME=VALUE or "NAME": "VALUE" in text when NAME names a
// secret and VALUE looks like one.
func assignment(s string, i int) (Match, bool) {
	password, ok := nameBefore(s, i)
	if !ok {
		return Match{}, false
	}
	j := i + 1
	if s[i] == ':' && j < len(s) && s[j] == '=' {
		j++ // :=
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	var end int
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		q := strings.IndexByte(s[j+1:min(len(s), j+1+4096)], s[j])
		if q < 0 {
			return Match{}, false
		}
		j, end = j+1, j+1+q
	} else {
		end = j
		for end < len(s) && end-j < 4096 && !valueStop[s[end]] {
			end++
		}
	}
	if end > j && !PlausibleSecret(s[j:end], password) {
		return Match{}, false
	}
	if end == j {
		return Match{}, false
	}
	return Match{NamedSecret, j, end}, true
}

// valueStop ends an unquoted value; an opening bracket too, since a value
// followed by one is code (getpass(), env["X"]), not a secret.
var valueStop = class(" \t\r\n\"',;&(){}[]<>`\\")

// SecretName reports whether a key or variable name names a secret
// (api_key, GITHUB_TOKEN, clientSecret, X-Api-Key, password …), and
// whether it names a password, whose values are judged less strictly. The
// protocol's own tokens and cursors (progressToken, nextPageToken) are not
// secrets.
func SecretName[T ~string | ~[]byte](name T) (password, ok bool) { return secretName(name) }

func secretName[T ~string | ~[]byte](name T) (password, ok bool) {
	var buf [64]byte
	n := 0
	for i := 0; i < len(name) && n < len(buf); i++ {
		c := lower(name[i])
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			buf[n] = c
			n++
		}
	}
	if n < 3 {
		return false, false
	}
	norm := buf[:n]
	// Most names end in a letter no secret name ends in: decided by one
	// switch, as this runs for every member of every suspect-looking value.
	var names []string
	switch norm[n-1] {
	case 'd', 'e':
		for _, s := range passwordNames {
			if hasSuffix(norm, s) {
				return true, true
			}
		}
		return false, false
	case 't':
		names = secretNames[:1]
	case 'n':
		names = []string{"token", "authorization"}
	case 'y':
		names = keyNames
	case 'l', 's':
		names = []string{"credential", "credentials"}
	case 'h':
		names = []string{"auth"}
	default:
		return false, false
	}
	for _, s := range names {
		if hasSuffix(norm, s) {
			for _, x := range notSecretNames {
				if string(norm) == x {
					return false, false
				}
			}
			return false, true
		}
	}
	return false, false
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

var (
	passwordNames = []string{"password", "passwd", "passphrase", "pwd"}
	secretNames   = []string{"secret", "token", "authorization", "auth", "credential", "credentials"}
	keyNames      = []string{"apikey", "accesskey", "secretkey", "privatekey", "signingkey", "encryptionkey", "masterkey"}
	// Tokens of pagination, progress and CSRF protection: protocol state, not credentials.
	notSecretNames = []string{"progresstoken", "nexttoken", "pagetoken", "nextpagetoken", "continuationtoken",
		"synctoken", "cursortoken", "csrftoken", "xsrftoken", "resumetoken", "paginationtoken"}
)

// PlausibleSecret judges a value found under a secret name: a password of
// at least 8 characters of 3 kinds (lower, upper, digit, symbol), or any
// other secret of at least 16 random-looking characters. Placeholders,
// paths, URLs, UUIDs and numbers are not secrets.
func PlausibleSecret(v string, password bool) bool {
	if len(v) > 4096 || placeholder(v) {
		return false
	}
	return plausiblePassword(v, password)
}

func plausiblePassword(v string, password bool) bool {
	if len(v) < 6 || placeholder(v) {
		return false
	}
	var lowerN, upperN, digitN, otherN int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c <= ' ' || c == 0x7f:
			return false // white space or a control: prose, not a secret
		case c >= 'a' && c <= 'z':
			lowerN = 1
		case c >= 'A' && c <= 'Z':
			upperN = 1
		case c >= '0' && c <= '9':
			digitN = 1
		default:
			otherN = 1
		}
	}
	kinds := lowerN + upperN + digitN + otherN
	if v[0] == '/' || v[0] == '~' || v[0] == '.' || strings.Contains(v, "://") || isUUID(v) || identifier(v) {
		return false
	}
	if password {
		return len(v) >= 8 && kinds >= 3 && distinct(v) >= 6
	}
	// A random key of 16 characters or more has a digit almost always; a
	// value of words without one is a name (config.apiKey, MY_TOKEN_VAR).
	return len(v) >= 16 && digitN == 1 && kinds >= 2 && entropy(v) >= 3.3
}

// identifier recognises what code and configuration put after a secret's
// name when it is not the secret: a dotted path (os.environ.API_KEY,
// settings.auth.token) or a SCREAMING_SNAKE name (GITHUB_TOKEN_V2).
func identifier(v string) bool {
	dotted, snake := true, strings.Contains(v, "_")
	for _, part := range strings.Split(v, ".") {
		if part == "" || !(part[0] == '_' || part[0] == '$' || lower(part[0]) >= 'a' && lower(part[0]) <= 'z') {
			dotted = false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !(c == '_' || c == '$' || alnum[c]) {
				dotted = false
			}
		}
	}
	for i := 0; i < len(v) && snake; i++ {
		snake = v[i] == '_' || v[i] >= 'A' && v[i] <= 'Z' || v[i] >= '0' && v[i] <= '9'
	}
	return dotted && strings.Contains(v, ".") || snake && v[0] >= 'A' && v[0] <= 'Z'
}

// placeholder recognises the values documentation and templates put where a
// secret goes.
func placeholder(v string) bool {
	l := strings.ToLower(v)
	if v == "" {
		return true
	}
	for _, p := range []string{"xxxx", "****", "....", "<", ">", "${", "{{", "%s", "redacted", "your_", "your-", "yourkey", "placeholder", "changeme", "dummy", "sha256:"} {
		if strings.Contains(l, p) {
			return true
		}
	}
	return l[0] == '$' || l[0] == '%'
}

func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := lower(s[i]); c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
