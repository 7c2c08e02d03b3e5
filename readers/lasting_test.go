package readers

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// lastingProbe keeps, of every frame, its Raw and whether the reader said
// it lasts; it keeps the frames' bytes past their Frame call on purpose.
type lastingProbe struct {
	raws    [][]byte
	copies  []string
	lasting []bool
}

func (p *lastingProbe) Frame(_ *session.Session, f *session.Frame) {
	if f.Raw == nil {
		return
	}
	l := f.Lasting()
	p.raws, p.copies = append(p.raws, f.Raw), append(p.copies, string(f.Raw))
	p.lasting = append(p.lasting, l != nil && bytes.Contains(l, f.Raw) && len(l) >= len(f.Raw))
}
func (p *lastingProbe) Damage(*session.Session, session.Damage) {}
func (p *lastingProbe) End(*session.Session)                    {}

// releasingProbe is lastingProbe for a handler that lets the reader reuse
// frames, which is what puts a pipeline between reader and handler.
type releasingProbe struct{ lastingProbe }

func (*releasingProbe) ReleasesFrames() {}

// An mcpsnoop envelope too large for the splitter's reused buffer is read
// into a buffer of its own, which the frame says lasts (session.Frame's
// Lasting): its bytes are the same after every later envelope was read,
// sequentially and through a pipeline, and under a test buffer size,
// whose wipe writes the last value's buffer again, none says so. Small
// envelopes, on one line or several (assembled in the reused buffer),
// never say so.
func TestLargeEnvelopesLast(t *testing.T) {
	big := strings.Repeat("x", 2*firstPart)
	var in strings.Builder
	for i := range 6 {
		text := "small"
		if i%2 == 1 {
			text = big + fmt.Sprint(i)
		}
		sep := ""
		if i%3 == 2 {
			sep = "\n  " // an envelope written over several lines
		}
		fmt.Fprintf(&in, `{"session_id":"s","seq":%d,`+sep+`"direction":"s2c","raw":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":%q}}}`+"\n", i+1, text)
	}
	for _, c := range []struct {
		name    string
		probe   interface{ probe() *lastingProbe }
		opts    Options
		lasting bool
	}{
		{"sequential", &lastingProbe{}, Options{Limits: session.Limits{Pipeline: session.PipelineNever}}, true},
		{"pipeline", &releasingProbe{}, Options{Limits: session.Limits{Pipeline: session.PipelineAlways}}, true},
		{"test buffer size", &lastingProbe{}, Options{ReadBuffer: 4096, Limits: session.Limits{Pipeline: session.PipelineNever}}, false},
	} {
		p := c.probe.probe()
		err := Read("big.jsonl", strings.NewReader(in.String()), c.probe.(session.Handler), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		mode := c.name
		if len(p.raws) != 6 {
			t.Fatalf("%s: %d frames", mode, len(p.raws))
		}
		for i := range p.raws {
			if want := c.lasting && i%2 == 1; p.lasting[i] != want {
				t.Errorf("%s: envelope %d lasting %v, want %v", mode, i+1, p.lasting[i], want)
			}
			if p.lasting[i] && string(p.raws[i]) != p.copies[i] {
				t.Errorf("%s: envelope %d said it lasts, and its bytes changed", mode, i+1)
			}
		}
	}
}

func (p *lastingProbe) probe() *lastingProbe { return p }
