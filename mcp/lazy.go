package mcp

// Lazy is a view defined in its own file: decoded by Decode the first time
// a frame's View is asked for it, and cached on that View. New views are
// Lazy values, so adding one touches neither View nor the reader.
//
//	var ElicitSchema = &mcp.Lazy[*Schema]{Decode: func(v *mcp.View) *Schema { … v.Params() … }}
//	schema := ElicitSchema.Of(f.View())
type Lazy[T any] struct {
	Decode func(v *View) T
}

type lazyEntry struct {
	key any
	val any
}

// Of returns the view of v, decoding it on first use.
func (l *Lazy[T]) Of(v *View) T {
	for _, e := range v.lazy {
		if e.key == l {
			return e.val.(T)
		}
	}
	val := l.Decode(v)
	v.lazy = append(v.lazy, lazyEntry{l, val})
	return val
}

// Params is the message's raw params (nil when absent); like every view it
// aliases the reader's buffer.
func (v *View) Params() []byte { return v.params }

// Result is the message's raw result (nil when absent).
func (v *View) Result() []byte { return v.result }

// Member returns the raw value of the member called name of a JSON object,
// or nil: a building block for views and rules. It is jsonscan.Member, the
// one lookup: of a name used twice, the last value wins.
func Member(obj []byte, name string) []byte { return member(obj, name) }
