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
