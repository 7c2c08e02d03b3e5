package session

import "runtime"

// Limits tune how a Correlator correlates one capture file. Production reads
// use DefaultLimits; tests pass smaller ones to reach the paths large
// captures take. A zero field means its default.
type Limits struct {
	// MaxLiveSessions is how many sessions of the file are correlated as it
	// is read; later ones wait in a temporary file (defer.go).
	MaxLiveSessions int
	// MaxHeldBytes bounds the answers the sessions of the file hold back
	// for the reorder window; past it the oldest are decided early.
	MaxHeldBytes int
	// Pipeline says when a read runs in two goroutines (pipeline.go).
	Pipeline PipelineMode
	// Poison overwrites what the pipeline reuses once correlation is done
	// with it, so that a handler keeping a frame without detaching it sees
	// garbage (tests; readers set it with a small read buffer).
	Poison bool
}

// MaxLiveSessions is how many sessions of one capture file are correlated
// as the file is read. The frames of later sessions wait in a temporary
// file, and each of those sessions is correlated on its own once the file
// has been read: a file of any number of sessions keeps the state of at
// most this many; which record belongs to which later session is in that
// file too (waiting.go), so they cost no memory (spec §2.4).
const MaxLiveSessions = 256

// MaxHeldBytes is the default Limits.MaxHeldBytes.
const MaxHeldBytes = 64 << 20

// DefaultLimits are the limits of a production read.
func DefaultLimits() Limits {
	return Limits{MaxLiveSessions: MaxLiveSessions, MaxHeldBytes: MaxHeldBytes, Pipeline: PipelineAuto}
}

// orDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	if l.MaxLiveSessions <= 0 {
		l.MaxLiveSessions = d.MaxLiveSessions
	}
	if l.MaxHeldBytes <= 0 {
		l.MaxHeldBytes = d.MaxHeldBytes
	}
	return l
}

// PipelineMode says when a read runs in two goroutines. Findings are the
// same in every mode.
type PipelineMode int

// Pipeline modes.
const (
	PipelineAuto   PipelineMode = iota // with two or more cores
	PipelineAlways                     // whenever the handler releases its frames
	PipelineNever                      // always sequential
	PipelineTiny                       // always, with batches of two items that borrow most messages (and Poison)
)

// overlaps reports whether a read for h in mode m runs in two goroutines.
// The pipeline reuses its frames, so the handler must keep none of them.
func overlaps(h Handler, m PipelineMode) bool {
	if _, ok := h.(FrameReleaser); !ok {
		return false
	}
	switch m {
	case PipelineAlways, PipelineTiny:
		return true
	case PipelineNever:
		return false
	}
	return runtime.GOMAXPROCS(0) >= 2
}
