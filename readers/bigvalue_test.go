package readers

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
