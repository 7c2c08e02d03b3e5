package checks_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

// annotate makes the fixture harness write the subject and severity of
// the findings into the wants of a bad fixture's own rule that lack them.
var annotate = flag.Bool("annotate", false, "write subject and severity into the own-rule wants of bad fixtures that lack them")

// annotateFixture adds "subject" and "severity" to each want of unnamed,
// from the one finding on its line it can match, and rewrites the files
// the wants are in (the fixture, its suppressions file).
func annotateFixture(unnamed []want, got []gotFinding) error {
	byFile := map[string][]want{}
	for _, w := range unnamed {
		byFile[w.File] = append(byFile[w.File], w)
	}
	for path, ws := range byFile {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := annotateFile(path, data, ws, got); err != nil {
			return err
		}
	}
	return nil
}

func annotateFile(path string, data []byte, unnamed []want, got []gotFinding) error {
	type at struct{ line, ordinal int }
	add := map[at]string{}
	for _, w := range unnamed {
		var pick *gotFinding
		for i, f := range got {
			loose := w
			loose.Subject, loose.Severity = nil, ""
			if f.File != w.File || f.Line != w.Line || !loose.matches(f) {
				continue
			}
			if pick != nil && (pick.Subject != f.Subject || pick.Severity != f.Severity) {
				return fmt.Errorf("%s:%d: want %s matches findings of different subjects or severities; name them by hand", path, w.Line, w)
			}
			pick = &got[i]
		}
		if pick == nil {
			return fmt.Errorf("%s:%d: want %s matches no finding", path, w.Line, w)
		}
		var b bytes.Buffer
		if w.Subject == nil {
			subject, _ := json.Marshal(pick.Subject)
			fmt.Fprintf(&b, `,"subject":%s`, subject)
		}
		if w.Severity == "" {
			fmt.Fprintf(&b, `,"severity":%q`, pick.Severity)
		}
		add[at{w.Line, w.Ordinal}] = b.String()
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, line := range lines {
		loc := wantKey.FindIndex(line)
		if loc == nil {
			continue
		}
		var out bytes.Buffer
		out.Write(line[:loc[1]])
		rest := line[loc[1]-1:]
		dec := json.NewDecoder(bytes.NewReader(rest))
		if _, err := dec.Token(); err != nil { // [
			return err
		}
		done := 1
		for k := 0; dec.More(); k++ {
			var el json.RawMessage
			if err := dec.Decode(&el); err != nil {
				return err
			}
			end := int(dec.InputOffset()) // just past the element's }
			out.Write(rest[done : end-1])
			out.WriteString(add[at{i + 1, k}])
			done = end - 1
		}
		out.Write(rest[done:])
		lines[i] = out.Bytes()
	}
	annotated := bytes.Join(lines, nil)
	if strings.Count(string(annotated), `"severity"`)-strings.Count(string(data), `"severity"`) == 0 {
		return fmt.Errorf("%s: nothing annotated", path)
	}
	return os.WriteFile(path, annotated, 0o644)
}
