package readers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// FuzzReadHTTPFormats: HAR and LogRocket documents of any shape give
// frames, damage or a clean error; never a panic, a hang or a dropped
// frame. Seeds are the fixtures of testdata/formats and shapes of damage.
func FuzzReadHTTPFormats(f *testing.F) {
	for _, pattern := range []string{"har/*.har", "logrocket/*.logrocket.json"} {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", "formats", pattern))
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"log":{"entries":[{"request":{"method":"POST","url":"http://h/mcp","postData":{"text":"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"}},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {"}}}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"request":{"method":"POST","url":"mcp://x/tools/call/a","postData":{"text":"{}"}},"response":{"status":500,"content":{"text":"{\"code\":1,\"message\":\"m\"}"}}}`))
	f.Add([]byte(`{"appID":"a","sdk":{},"events":[{"startTime":1,"durationMs":1,"method":"initialize","result":{"value":{}}},{"startTime":2,"durationMs":1,"method":"ping"}]}` + "\n[{\"startTime\":3"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec := &recorder{}
		if err := Read("fuzz", bytes.NewReader(data), rec, Options{}); err != nil {
			return
		}
		seen := map[*session.Frame]bool{}
		for _, fr := range rec.frames {
			if fr.Line < 1 || fr.SessionID == "" || fr.File == "" {
				t.Fatalf("frame without a location or session: %+v", fr)
			}
			if seen[fr] {
				t.Fatalf("frame delivered twice: %+v", fr)
			}
			seen[fr] = true
		}
		var added int64
		for _, s := range rec.sessions {
			added += s.Frames
		}
		if added != int64(len(rec.frames)) {
			t.Fatalf("%d frames read, %d delivered", added, len(rec.frames))
		}
		for _, d := range rec.damage {
			if d.Line < 1 || d.Reason == "" {
				t.Fatalf("damage without a location or reason: %+v", d)
			}
		}
	})
}
