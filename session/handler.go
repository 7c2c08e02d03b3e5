package session

// Handler receives a capture as it is read. Frames of one session arrive in
// capture order, except that an answer recorded before its request is
// delivered after it, a multi round-trip retry recorded before the result
// that issued its state is delivered after that result, and a rejected
// version probe's answer waits for the client's next request.
type Handler interface {
	// Frame is called once per correlated frame. f is not retained by the
	// reader; the handler must not keep it either.
	Frame(s *Session, f *Frame)
	// Damage reports an envelope that could not be read.
	Damage(s *Session, d Damage)
	// End is called once per session after its last frame.
	End(s *Session)
}

// Damage is a piece of a capture that is not a readable envelope.
type Damage struct {
	File   string
	Line   int
	Reason string
	More   int // further damaged pieces this one stands for (a summary), 0 for one piece

	// Seq is the envelope's own seq, when it survived and shows that the
	// recorder dropped GapBefore frames just before it; both 0 otherwise.
	Seq, GapBefore int64

	// Lost, when set, says that this is not a torn line the recorder left
	// but a part of the capture the gate did not read (spec §2.1, fail
	// closed): a frame past a limit that could not be read at all, or a
	// break that loses an unknown amount of what follows (a compressed
	// stream, a document format that breaks off). It says what was lost,
	// for messages; unread-capture reports it.
	Lost string

	// ByDesign says that nothing was unreadable: the format keeps no frames
	// of this kind (a call-level export records no notifications), so rules
	// that need them must not judge their absence, and no damage is reported.
	ByDesign bool
}

// StdinName is how a capture read from standard input is named in reports
// (the File of its frames and sessions).
const StdinName = "<stdin>"
