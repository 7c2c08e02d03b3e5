package checks

import (
	"strings"
	"testing"
)

func TestDocMarkdown(t *testing.T) {
	t.Parallel()
	d := Doc{
		Summary: "s",
		Why:     "A *bold* claim about <html> and\nsnake_case ids.\n\n- not a list",
		Fix:     "Send `x`.",
		Bad:     `{"id":1}`,
		Good:    `{"jsonrpc":"2.0","id":1}`,
	}
	want := "A \\*bold\\* claim about \\<html\\> and snake\\_case ids.\n\n" +
		"\\- not a list\n\n" +
		"**Fix:** Send \\`x\\`.\n\n" +
		"```\nBad:  {\"id\":1}\nGood: {\"jsonrpc\":\"2.0\",\"id\":1}\n```"
	if got := d.Markdown(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
	if got := d.FirstParagraph(); got != "A *bold* claim about <html> and snake_case ids." {
		t.Errorf("first paragraph %q", got)
	}
	if got := d.Text(); !strings.HasSuffix(got, "Fix: Send `x`.\n\nBad:  {\"id\":1}\nGood: {\"jsonrpc\":\"2.0\",\"id\":1}") {
		t.Errorf("text %q", got)
	}
	if got := codeBlock("Bad: ```x```"); !strings.HasPrefix(got, "````\n") {
		t.Errorf("fence not longer than the backticks inside: %q", got)
	}
}
