package session

// FrameReleaser is a Handler that keeps nothing of a frame past its Frame
// call: not the *Frame, not its bytes, not its views (what it needs later
// it copies). The mcpsnoop reader then fills one Frame for every envelope
// instead of allocating one each; correlation copies the frames it holds
// back. With a test read buffer (readers.Options.ReadBuffer) the reused frame
// is overwritten with garbage after each envelope, so a handler that keeps
// it anyway shows up in tests.
type FrameReleaser interface {
	Handler
	ReleasesFrames()
}

// Prescanner is a Handler with work to do on each frame that needs no
// session state, only the frame's own bytes (a rule's cheap first look at a
// message). When a capture is read by two goroutines, Prescan runs on the
// reader's, as the frame is queued, so that correlation's goroutine, the
// busier one, does not: its answer is kept in the frame (Frame.Marks).
// Prescan must be a pure function of the frame's Raw, Text and decoded
// message, safe to call from another goroutine than the handler's.
type Prescanner interface {
	Handler
	Prescan(f *Frame) Marks
}

// Marks is what a Prescanner found in a frame; its meaning is the
// handler's. A frame that was not prescanned (read sequentially, the
// element of a batch array, a frame correlation decoded itself) has none:
// Frame.Marks reports false, and the handler does the work itself.
type Marks uint64

// Marks returns what the handler's Prescan found in f, when it ran.
func (f *Frame) Marks() (Marks, bool) { return f.marks, f.marked }
