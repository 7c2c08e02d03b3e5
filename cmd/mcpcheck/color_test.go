package main

import (
	"bytes"
	"io"
	"testing"
)

// Colour on a terminal only, and never under NO_COLOR or TERM=dumb.
func TestColorOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	master, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		name   string
		getenv func(string) string
		mode   string
		out    io.Writer
		want   bool
	}{
		{"terminal", env(), "auto", tty, true},
		{"NO_COLOR", env("NO_COLOR", "1"), "auto", tty, false},
		{"TERM=dumb", env("TERM", "dumb"), "auto", tty, false},
		{"pipe", env(), "auto", &bytes.Buffer{}, false},
		{"always", env("NO_COLOR", "1"), "ALWAYS", &bytes.Buffer{}, true},
		{"never", env(), "never", tty, false},
	} {
		got, err := useColor(c.getenv, c.mode, c.out)
		if err != nil || got != c.want {
			t.Errorf("%s: colour %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
