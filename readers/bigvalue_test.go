package readers

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// A cache file of mcp-rewind is read into a buffer of its size, and an
// answer kept as a JSON string is decoded in those bytes: reading an
// 8 MiB answer allocates about its size once (grown by append and
// decoded into copies, it was about five times: 40 MiB).
func TestRewindReadsALargeAnswerOnce(t *testing.T) {
	const size = 8 << 20
	dir := filepath.Join(t.TempDir(), "weather")
	files := map[string]string{}
	for name, text := range rewindCache {
		files[name] = text
	}
	files["2 tools_list.res.json"] = `"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"` + strings.Repeat("a", size) + `\"}],\"isError\":true}}"`
	writeFiles(t, dir, files)
	read := func() {
		rc := openCache(t, dir)
		defer rc.Close()
		h := &lineCounter{}
		if err := Read(dir, rc, h, Options{}); err != nil || h.frames == 0 {
			t.Fatalf("Read: %v, %d frames", err, h.frames)
		}
	}
	read() // warm: what a first read sets up once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > size*3/2 {
		t.Errorf("reading an answer of %d MiB allocated %.1f MiB", size>>20, float64(got)/(1<<20))
	}
	t.Logf("%.1f MiB allocated", float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
}

// answerProbe is a Handler that keeps the size and the ends of the last
// answer (with requests, the last request) handed on, without copying it.
type answerProbe struct {
	requests   bool
	size       int
	head, tail string
}

func (p *answerProbe) Frame(_ *session.Session, f *session.Frame) {
	if (f.Direction == session.ClientToServer) == p.requests {
		p.size, p.head, p.tail = len(f.Raw), string(f.Raw[:min(len(f.Raw), 64)]), string(f.Raw[max(0, len(f.Raw)-64):])
	}
}
func (p *answerProbe) Damage(*session.Session, session.Damage) {}
func (p *answerProbe) End(*session.Session)                    {}

// wantAnswer checks that the last message p saw is prefix + value + "}",
// the value being size bytes of 'a' inside text.
func (p *answerProbe) wantAnswer(t *testing.T, prefix, text string, size int) {
	t.Helper()
	before, after, _ := strings.Cut(text, "%s")
	want := prefix + before + strings.Repeat("a", size) + after + "}"
	if p.size != len(want) || p.head != want[:64] || p.tail != want[len(want)-64:] {
		t.Errorf("the answer: %d bytes %q…%q, want %d bytes %q…%q", p.size, p.head, p.tail, len(want), want[:64], want[len(want)-64:])
	}
}

// A distilled mcp-rewind result is read after room for the start of its
// answer, which is written around it in the bytes it was read in: reading
// an 8 MiB result allocates about its size once (copied into its message,
// it was twice: 16 MiB).
func TestRewindWrapsALargeDistilledResultOnce(t *testing.T) {
	const size = 8 << 20
	const text = `{"content":[{"type":"text","text":"%s"}],"isError":true}`
	dir := filepath.Join(t.TempDir(), "weather")
	files := map[string]string{}
	for name, text := range rewindCache {
		files[name] = text
	}
	files["3 tools_call_get_alerts_0123456789abcdef.json"] = "\n  " + strings.Replace(text, "%s", strings.Repeat("a", size), 1) + "\n"
	delete(files, "10 tools_call_get_alerts_fedcba9876543210.req.json") // the big answer is the last one
	delete(files, "10 tools_call_get_alerts_fedcba9876543210.res-head.json")
	writeFiles(t, dir, files)
	probe := &answerProbe{}
	read := func() {
		rc := openCache(t, dir)
		defer rc.Close()
		if err := Read(dir, rc, probe, Options{}); err != nil {
			t.Fatalf("Read: %v", err)
		}
	}
	read() // warm: what a first read sets up once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	probe.wantAnswer(t, `{"jsonrpc":"2.0","id":3,"result":`, text, size)
	if got := after.TotalAlloc - before.TotalAlloc; got > size*3/2 {
		t.Errorf("reading a distilled result of %d MiB allocated %.1f MiB", size>>20, float64(got)/(1<<20))
	}
	t.Logf("%.1f MiB allocated", float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
}

// A single LogRocket event (not one of a batch) keeps its members each in
// a buffer of its own, its result after room for the start of its answer,
// which is written around the result's value there: reading one with an
// 8 MiB answer allocates what the same event in a batch does, read whole
// and wrapped in place (24 MiB: the parts it is gathered in, doubling,
// then the value joined once). Kept apart, copied and copied again into
// its message, it was 16 MiB more.
func TestLogRocketReadsALargeSingleEventOnce(t *testing.T) {
	const size = 8 << 20
	const text = `{"content":[{"type":"text","text":"%s"}],"isError":true}`
	first := lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`)
	big := lrEv(2, "tools/call", `"params":{"name":"dump","arguments":{}},"result":{"value":`+strings.Replace(text, "%s", strings.Repeat("a", size), 1)+`,"isError":true},`)
	allocated := func(doc []byte) uint64 {
		probe := &answerProbe{}
		read := func() {
			if err := Read("events.logrocket.jsonl", bytes.NewReader(doc), probe, Options{}); err != nil {
				t.Fatalf("Read: %v", err)
			}
		}
		read() // warm: what a first read sets up once
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		read()
		runtime.ReadMemStats(&after)
		probe.wantAnswer(t, `{"jsonrpc":"2.0","id":2,"result":`, text, size)
		return after.TotalAlloc - before.TotalAlloc
	}
	single := allocated([]byte(lines(first, big)))
	batch := allocated([]byte(`{"appID":"a","sdk":{"name":"logrocket-mcp-replay-go"},"events":[` + first + "," + big + "]}\n"))
	if single > batch+size/8 {
		t.Errorf("reading a single event with an answer of %d MiB allocated %.1f MiB, in a batch %.1f MiB", size>>20, float64(single)/(1<<20), float64(batch)/(1<<20))
	}
	t.Logf("%.1f MiB allocated, in a batch %.1f MiB", float64(single)/(1<<20), float64(batch)/(1<<20))
}

// take hands out the value, joined once after room spare bytes, in a
// buffer the valueBuf no longer holds: the next value, and the wipe that
// a tiny read buffer makes before it, leave it as it was.
func TestValueBufTakeHandsOutItsOwnBuffer(t *testing.T) {
	t.Parallel()
	piece := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB
	for _, size := range []int{100, firstPart, 20<<20 + 3} {
		var v valueBuf
		v.start()
		var want []byte
		for len(want) < size {
			p := piece[:min(len(piece), size-len(want))]
			v.add(p)
			want = append(want, p...)
		}
		got := v.take(40, 1)
		if len(got) != 40+size+1 || !bytes.Equal(got[40:40+size], want) || v.len() != 0 || len(v.parts) != 0 {
			t.Errorf("%d bytes: took %d bytes (room 40, 1 spare), %d left in the buffer", size, len(got), v.len())
		}
		v.wipe('x')
		v.start()
		v.add([]byte("next"))
		if string(v.bytes()) != "next" || !bytes.Equal(got[40:40+size], want) {
			t.Errorf("%d bytes: the next value %q, or it changed what was taken", size, v.bytes())
		}
	}
}
