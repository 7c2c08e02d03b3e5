package session

import "encoding/json"

// What a format (package readers) feeds a Correlator through, beyond Add,
// Damage and Finish: the in-place decode of the pipeline, and the little
// of correlation's state a reader that infers directions reads.

// MessageStore is where a message decoded in place keeps its params and
// result, instead of allocating them: a reused frame's, or the pipeline
// batch item's that Stage returns.
type MessageStore = msgStore

// CacheIDs makes the ids decoded into st go through an id cache of its own
// (for a store that lives as long as its reader).
func (st *MessageStore) CacheIDs() { st.ids = new(idCache) }

// UseStore says that f's message was decoded into st (by ReadMessage):
// correlation and the pipeline take it from there without decoding or
// copying it again.
func (f *Frame) UseStore(st *MessageStore) { f.store = st }

// ReadMessage decodes the JSON-RPC message that starts at b[i] (an object,
// depth containers deep) into st, as a format walks the envelope holding
// it, and returns it with the offset after it.
func ReadMessage(b []byte, i, depth int, st *MessageStore) (m Message, end int, err error) {
	return readMessage(b, i, depth, st)
}

// DecodeMessage decodes raw as correlation does.
func DecodeMessage(raw json.RawMessage) Message { return decodeMessage(raw) }

// Stage returns a copy of data in the pipeline's batch, with the store the
// message of the frame to be added next is to be decoded into, when the
// correlator runs a pipeline and data is not too large to copy; else nil
// and nil. A format that decodes a frame from the staged copy (and says so
// with UseStore) hands it over without a further copy.
func (c *Correlator) Stage(data []byte) ([]byte, *MessageStore) { return c.stage(data) }

// Sequential makes the correlator correlate each frame as it is added, on
// the caller's goroutine, for a format whose reader reads the sessions as
// correlated so far (Session). Call it before adding anything.
func (c *Correlator) Sequential() { c.stopPipeline() }

// Stop waits until everything added has been correlated and ends the
// pipeline, if one runs; from then on the correlator works on the caller's
// goroutine. Finish stops it too; reading stops it as well when a format
// fails before it finishes.
func (c *Correlator) Stop() { c.stopPipeline() }

// Session returns the live session with id id, nil when there is none yet
// (or it is deferred). Only for a Sequential correlator.
func (c *Correlator) Session(id string) *Session { return c.sessions[id] }

// Limits are the limits the correlator was made with, defaults filled in.
func (c *Correlator) Limits() Limits { return c.limits }

// ReusesFrames reports whether the handler keeps nothing of a frame past
// its Frame call (a FrameReleaser): a format may then fill one Frame for
// every envelope, instead of allocating one each.
func (c *Correlator) ReusesFrames() bool {
	_, ok := c.h.(FrameReleaser)
	return ok
}

// OpenCall returns the open request of s sent in direction dir with id id,
// recently finished ones included, or nil.
func (s *Session) OpenCall(dir Direction, id ID) *Call { return s.find(dir, id, "", false) }

// RecentCall returns the call of the capture file, finished recently, that
// was sent in direction dir with id id, or nil.
func (s *Session) RecentCall(dir Direction, id ID) *Call { return s.findRecent(dir, id, "") }

// DirectionOf is the direction s's correlation so far shows m was sent in,
// and why; DirUnknown when it shows none.
func (s *Session) DirectionOf(m *Message) (Direction, Inference) { return s.directionOf(m, "") }

// MethodDirection is the direction a request or notification of method is
// always sent in; DirUnknown for a method both sides send.
func MethodDirection(method string) Direction { return methodDirection(method) }

// ParseDirection reads a direction as envelopes spell it ("c2s", "s2c",
// "stderr", "meta"); DirUnknown for anything else.
func ParseDirection(s string) Direction { return parseDirection(s) }

// IsEndpoint reports the data of a legacy SSE endpoint event: an absolute
// path, or an http(s) URL.
func IsEndpoint(text string) bool { return isEndpoint(text) }

// ShortQuote quotes s as JSON, cut to about max bytes, for a message.
func ShortQuote(s string, max int) string { return shortQuote(s, max) }
