package readers

import (
	"github.com/mcpcheck/mcpcheck/session"
)

// Options tune reading. Production reads use DefaultOptions; tests pass
// smaller values to reach the paths large captures take. A zero field
// means its default.
type Options struct {
	// MaxEnvelope is the largest envelope (a frame, a HAR entry, an event,
	// a logged message) read into memory. Larger ones are skipped and
	// reported, so one runaway frame cannot exhaust memory.
	MaxEnvelope int
	// ReadBuffer is how much of a capture a reader holds at a time (bufio
	// makes it at least 16 bytes). Below ReadBufferSize the readers
	// overwrite every buffer they reuse before reusing it, and the
	// correlator poisons what it reuses, so a handler that keeps a frame's
	// bytes past the frame without copying them sees them change (tests).
	ReadBuffer int
	// Prelude is how much of an input may pass without an mcpsnoop
	// envelope of a session before it is given up on (spec §2.1).
	Prelude int64
	// NoWholeLines turns the splitter's newline fast path off (tests
	// compare the two).
	NoWholeLines bool
	// Limits tune correlation.
	Limits session.Limits
}

// Defaults of Options.
const (
	MaxEnvelope    = 256 << 20
	ReadBufferSize = 256 << 10
	PreludeSize    = 1 << 20
)

// DefaultOptions are the options of a production read.
func DefaultOptions() Options {
	return Options{MaxEnvelope: MaxEnvelope, ReadBuffer: ReadBufferSize, Prelude: PreludeSize, Limits: session.DefaultLimits()}
}

// orDefaults fills the zero fields of o from DefaultOptions, and tells
// correlation to poison what it reuses under a test buffer size.
func (o Options) orDefaults() Options {
	d := DefaultOptions()
	if o.MaxEnvelope <= 0 {
		o.MaxEnvelope = d.MaxEnvelope
	}
	if o.ReadBuffer <= 0 {
		o.ReadBuffer = d.ReadBuffer
	}
	if o.Prelude <= 0 {
		o.Prelude = d.Prelude
	}
	o.Limits.Poison = o.Limits.Poison || o.wipes()
	return o
}

// wipes reports a test buffer size: readers overwrite what they reuse.
func (o Options) wipes() bool { return o.ReadBuffer < ReadBufferSize }
