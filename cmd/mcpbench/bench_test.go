package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

func TestFloorCounts(t *testing.T) {
	data, err := io.ReadAll(sessiontest.Calls(3000, 1000))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	for which, decode := range floorDecoders {
		c, err := decode(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			t.Fatalf("%s: %v", which, err)
		}
		// 3 sessions: initialize and tools/list each, plus the calls.
		if c.Envelopes != lines || c.Calls != 3000 || c.Requests != 3000+2*3 || c.Results+c.Errors != c.Requests {
			t.Errorf("%s: %v for %d lines", which, c, lines)
		}
		if c.Errors == 0 {
			t.Errorf("%s: no error answers counted", which)
		}
	}
}

func TestParseCount(t *testing.T) {
	for s, want := range map[string]int{"10k": 10_000, "1M": 1_000_000, "250": 250} {
		if got, err := parseCount(s); err != nil || got != want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "k", "-3", "1g"} {
		if _, err := parseCount(s); err == nil {
			t.Errorf("parseCount(%q) accepted", s)
		}
	}
}

// TestBenchSmall runs the whole harness on a small capture: it builds the
// binaries, measures every command and prints the table.
func TestBenchSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds mcpcheck")
	}
	var out, errs strings.Builder
	if err := runBench([]string{"-calls", "2000", "-runs", "1", "-rules"}, &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	t.Log("\n" + out.String())
	for _, row := range []string{"| 2k calls, ", "| mcpcheck check (default: every rule) | ", "| mcpcheck check --format sarif | ", "| mcpcheck check: SARIF + JUnit + JSON | ", "| mcpcheck check, the four content rules off | ", "| encoding/json decode (floor) | "} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("no %q in\n%s", row, out.String())
		}
	}
	for _, line := range []string{"default check / encoding/json/v2 floor: ", "SARIF / text: ", "secret-leak: the default run takes ", "tool-poisoning: the default run takes "} {
		if !strings.Contains(out.String(), line) && (line != "default check / encoding/json/v2 floor: " || !strings.Contains(out.String(), "unavailable")) {
			t.Errorf("no %q in\n%s", line, out.String())
		}
	}
	if strings.Contains(out.String(), "not measured") {
		t.Errorf("a peak was not measured:\n%s", out.String())
	}
}
