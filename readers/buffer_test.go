package readers

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// keeper keeps every frame's Raw without copying it, as a buggy handler
// would, next to a copy made while the frame was current.
type keeper struct {
	recorder
	kept, copies [][]byte
}

func (k *keeper) Frame(s *session.Session, f *session.Frame) {
	k.kept = append(k.kept, f.Raw)
	k.copies = append(k.copies, bytes.Clone(f.Raw))
}

// changed lists the frames whose kept bytes no longer hold what they did.
func (k *keeper) changed() []int {
	var out []int
	for i := range k.kept {
		if !bytes.Equal(k.kept[i], k.copies[i]) {
			out = append(out, i+1)
		}
	}
	return out
}

// bufferCapture has envelopes that grow and shrink, so that the reader
// both reuses its assembly buffer and outgrows it. Each one's raw is short
// and last, after padding: when the next envelope outgrows the buffer, it
// lies in the part that was not yet overwritten.
func bufferCapture() string {
	var ls []string
	for i, n := range []int{10, 400, 900, 20, 2000, 30, 50} {
		pad := fmt.Sprintf(`"conn_id":%q`, strings.Repeat("p", n))
		ls = append(ls, env(i+1, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","method":"m%d"}`, i+1), pad))
	}
	return lines(ls...)
}

func gzipped(t *testing.T, s string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, s)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Under a tiny Options.ReadBuffer every buffer the reader reuses is small,
// plain or gzipped: by the end of the capture the bytes of every frame but
// the last have been overwritten. With the normal buffer a capture this
// small is read in one piece and nothing changes, which is why fixtures
// are read with a tiny buffer too.
func TestTinyReadBufferOverwritesKeptBytes(t *testing.T) {
	t.Parallel()
	capture := bufferCapture()
	for name, input := range map[string]string{"plain": capture, "gzip": gzipped(t, capture)} {
		t.Run(name, func(t *testing.T) {
			read := func(o Options) *keeper {
				k := &keeper{}
				if err := Read("buf.jsonl", strings.NewReader(input), k, o); err != nil {
					t.Fatal(err)
				}
				if len(k.kept) != 7 || len(k.damage) > 0 {
					t.Fatalf("%d frames, damage %v", len(k.kept), k.damage)
				}
				return k
			}
			if got := read(Options{}).changed(); len(got) > 0 {
				t.Errorf("normal buffer: frames %v changed after their turn", got)
			}
			k := read(Options{ReadBuffer: 64})
			if got, want := fmt.Sprint(k.changed()), "[1 2 3 4 5 6]"; got != want {
				t.Errorf("64-byte buffer: frames %s changed after their turn, want %s", got, want)
			}
		})
	}
}
