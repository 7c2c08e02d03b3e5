package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestTextGolden(t *testing.T) {
	t.Parallel()
	golden(t, "sample.txt", render(t, "text", testOptions(), sampleResult(t)))
	golden(t, "empty.txt", render(t, "text", testOptions(), emptyResult(t)))
	quiet := testOptions()
	quiet.Quiet = true
	golden(t, "sample-quiet.txt", render(t, "text", quiet, sampleResult(t)))
}

func TestTextLevelsFollowTheGate(t *testing.T) {
	t.Parallel()
	out := string(render(t, "text", testOptions(), sampleResult(t)))
	for _, want := range []string{
		"run 1.jsonl:10: [error] tools/call \"echo\" (id 2) failed with JSON-RPC error -32603",
		"run 1.jsonl:19: [note] client tools/call \"hang\" (id 6) was never answered (fake-no-answer)",
		"session fs-1: errors=5 invalid=1 warnings=1 mismatches=1 pending=1 late_results=1 deprecated=1 missing_frames=2 schema_findings=1 contract=1 security=1 incomplete=2 drift=1 suppression=1 suppressed=2\n",
		"run 1.jsonl:28: [note] tool \"write\" (id 9) reported an error: \"EROFS: read-only file system\" (suppressed: the CI volume is read-only <until> the \"ops\" fix & more on a second line) (fake-tool-failure)\n",
		"run 1.jsonl:29: [note] tools/call \"move\" (id 10) failed with JSON-RPC error -32602 (suppressed: known: the client sends a stale schema) (fake-rpc-error)\n",
		"/work/project/.mcpcheck-suppressions.json:14: [note] suppression 0123456789abcdef0123456789abcdef of fake-seq-gap matched no finding (fake-stale-entry)\n",
		"check failed: error,invalid,warn\n",
		"assertion failed: forbid-tool: forbidden tool \"delete\" was called 2 times",
		"<stdin>:2: [error] client request ping (id 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q\n%s", want, out)
		}
	}
	if strings.Contains(out, "check passed") {
		t.Error("a failed run says check passed")
	}
	if !strings.HasSuffix(string(render(t, "text", testOptions(), emptyResult(t))), "check passed\n") {
		t.Error("a clean run does not end with check passed")
	}
}

func TestTextQuietKeepsOnlyGatedFindingsAndVerdict(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Quiet = true
	out := string(render(t, "text", o, sampleResult(t)))
	if strings.Contains(out, "[note]") || strings.Contains(out, "session fs-1:") {
		t.Errorf("--quiet printed informational lines:\n%s", out)
	}
	if !strings.Contains(out, "[error]") || !strings.Contains(out, "check failed:") {
		t.Errorf("--quiet dropped failing findings or the verdict:\n%s", out)
	}
}

func TestTextColor(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Color = true
	out := render(t, "text", o, sampleResult(t))
	if !bytes.Contains(out, []byte("\x1b[1m\x1b[31m[error]\x1b[0m")) {
		t.Errorf("coloured output has no red [error]:\n%q", out[:200])
	}
	if bytes.Contains(render(t, "text", testOptions(), sampleResult(t)), []byte("\x1b[")) {
		t.Error("uncoloured output contains escape sequences")
	}
}

func TestLookupUnknownFormatListsValidOnes(t *testing.T) {
	t.Parallel()
	_, err := Lookup("yaml")
	if err == nil || !strings.Contains(err.Error(), "text") {
		t.Fatalf("Lookup(yaml) = %v, want an error listing the formats", err)
	}
	if _, err := Lookup("TEXT"); err != nil {
		t.Errorf("format names are case-insensitive: %v", err)
	}
}

// A session id is capture data: it cannot forge a verdict line or reach the
// terminal raw.
func TestTextSessionIDCannotForgeLines(t *testing.T) {
	t.Parallel()
	r := emptyResult(t)
	r.Sessions[0].ID = "s1\ncheck passed\x1b[2J\xff"
	out := string(render(t, "text", testOptions(), r))
	if strings.Count(out, "\n") != 2 || strings.Contains(out, "\x1b") || strings.Contains(out, "\xff") {
		t.Errorf("session id leaked control characters or bytes:\n%q", out)
	}
	if !strings.HasPrefix(out, `session s1\u000acheck passed\u001b[2J`+"\ufffd: errors=0") {
		t.Errorf("unexpected escaping: %q", out)
	}
}
