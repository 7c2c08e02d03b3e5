package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func TestJSONGolden(t *testing.T) {
	t.Parallel()
	golden(t, "json-sample.golden", render(t, "json", testOptions(), sampleResult(t)))
	golden(t, "json-empty.golden", render(t, "json", testOptions(), emptyResult(t)))
}

// parseJSON reads a report back, refusing fields the schema does not define.
func parseJSON(t *testing.T, out []byte) JSONReport {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var rep JSONReport
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("report does not decode: %v\n%s", err, out)
	}
	return rep
}

// checkJSONMatches compares a decoded report with the result it came from.
func checkJSONMatches(t *testing.T, r *result.Result, rep JSONReport) {
	t.Helper()
	if rep.Version != JSONVersion || rep.Passed != r.Passed || rep.ExitCode != r.ExitCode {
		t.Errorf("version=%d passed=%v exit_code=%d, want %d %v %d", rep.Version, rep.Passed, rep.ExitCode, JSONVersion, r.Passed, r.ExitCode)
	}
	if rep.Passed != (rep.ExitCode == 0) {
		t.Errorf("passed=%v disagrees with exit_code=%d", rep.Passed, rep.ExitCode)
	}
	if rep.Gate != r.Gate.String() {
		t.Errorf("gate = %q, want %q", rep.Gate, r.Gate.String())
	}
	if len(rep.Files) != len(r.Files) {
		t.Errorf("files = %q, want %q", rep.Files, r.Files)
	}
	if len(rep.Sessions) != len(r.Sessions) {
		t.Fatalf("%d sessions, want %d", len(rep.Sessions), len(r.Sessions))
	}
	for i, s := range r.Sessions {
		js := rep.Sessions[i]
		if js.ID != s.ID || js.File != s.File || js.Label != s.Label || js.Revision != s.Revision {
			t.Errorf("session %d = %s/%s/%s/%s, want %s/%s/%s/%s", i, js.ID, js.File, js.Label, js.Revision, s.ID, s.File, s.Label, s.Revision)
		}
		if len(js.Counts) != len(checks.Signals()) {
			t.Errorf("session %s counts %d signals, want all %d", s.ID, len(js.Counts), len(checks.Signals()))
		}
		for _, sig := range checks.Signals() {
			if got, ok := js.Counts[sig.String()]; !ok || got != s.Count(sig) {
				t.Errorf("session %s counts[%s] = %d (present %v), want %d", s.ID, sig, got, ok, s.Count(sig))
			}
		}
		if len(js.Findings) != len(s.Findings) {
			t.Fatalf("session %s: %d findings, want %d", s.ID, len(js.Findings), len(s.Findings))
		}
		for j, f := range s.Findings {
			jf := js.Findings[j]
			if jf.Rule != f.Rule || jf.Signal != f.Signal.String() || jf.File != f.File || jf.Line != f.Line ||
				jf.Fingerprint != f.Fingerprint || jf.Gated != f.Gated || jf.Level != f.Level() || jf.Subject != f.Subject {
				t.Errorf("session %s finding %d = %+v, want %+v", s.ID, j, jf, *f)
			}
			if len(jf.Related) != len(f.Related) {
				t.Errorf("finding %s has %d related locations, want %d", f.Rule, len(jf.Related), len(f.Related))
			}
			switch e := f.Suppressed; {
			case e == nil && jf.Suppressed != nil:
				t.Errorf("finding %s: suppressed %+v, want none", f.Rule, jf.Suppressed)
			case e != nil && (jf.Suppressed == nil || jf.Suppressed.Reason != e.Reason ||
				(jf.Suppressed.Expires == nil) != (e.Expires == "") || jf.Suppressed.Expires != nil && *jf.Suppressed.Expires != e.Expires):
				t.Errorf("finding %s: suppressed %+v, want reason %q expires %q", f.Rule, jf.Suppressed, e.Reason, e.Expires)
			}
		}
		if js.Suppressed != s.CountSuppressed() {
			t.Errorf("session %s suppressed = %d, want %d", s.ID, js.Suppressed, s.CountSuppressed())
		}
		if len(js.Assertions) != len(s.Assertions) {
			t.Errorf("session %s: %d assertions, want %d", s.ID, len(js.Assertions), len(s.Assertions))
		}
		if want := s.FailedSignals(r.Gate); !slices.Equal(js.Failed, want) && !(len(want) == 0 && len(js.Failed) == 0) {
			t.Errorf("session %s failed = %q, want %q", s.ID, js.Failed, want)
		}
		if js.Passed != s.Passed() {
			t.Errorf("session %s passed = %v, want %v", s.ID, js.Passed, s.Passed())
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]*result.Result{"sample": sampleResult(t), "empty": emptyResult(t), "hostile": hostileResult(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkJSONMatches(t, r, parseJSON(t, render(t, "json", testOptions(), r)))
		})
	}
}

func TestJSONKeepsMessagesExactly(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	rep := parseJSON(t, render(t, "json", testOptions(), r))
	for i, s := range r.Sessions {
		for j, f := range s.Findings {
			if got := rep.Sessions[i].Findings[j].Message; got != f.Message {
				t.Errorf("message %q came back as %q", f.Message, got)
			}
		}
	}
}

func TestJSONArraysAreNeverNull(t *testing.T) {
	t.Parallel()
	odd := &result.Result{Sessions: []*result.SessionResult{{ID: "bare"}}, Passed: true}
	for name, r := range map[string]*result.Result{"empty": emptyResult(t), "odd": odd, "nothing": {}} {
		out := string(render(t, "json", testOptions(), r))
		// drift is the one member that is null (until baselines exist)
		if strings.Contains(strings.ReplaceAll(out, `"drift": null`, ""), "null") {
			t.Errorf("%s: output contains null:\n%s", name, out)
		}
	}
	out := string(render(t, "json", testOptions(), odd))
	for _, want := range []string{`"files": []`, `"findings": []`, `"assertions": []`, `"failed": []`, `"counts": {`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(string(render(t, "json", testOptions(), sampleResult(t))), `"related": []`) {
		t.Error("a finding without related locations has no empty related array")
	}
}

func TestJSONCountsInSignalOrder(t *testing.T) {
	t.Parallel()
	out := string(render(t, "json", testOptions(), emptyResult(t)))
	last := -1
	for _, sig := range checks.Signals() {
		i := strings.Index(out, `"`+sig.String()+`": `)
		if i < 0 || i < last {
			t.Fatalf("counts key %s missing or out of signal order in\n%s", sig, out)
		}
		last = i
	}
	again := render(t, "json", testOptions(), emptyResult(t))
	if out != string(again) {
		t.Error("two renderings differ")
	}
}

func TestJSONIsIndentedTwoSpaces(t *testing.T) {
	t.Parallel()
	out := string(render(t, "json", testOptions(), emptyResult(t)))
	if !strings.HasPrefix(out, "{\n  \"version\": 1,\n") || !strings.HasSuffix(out, "}\n") {
		t.Errorf("unexpected layout:\n%s", out)
	}
}
