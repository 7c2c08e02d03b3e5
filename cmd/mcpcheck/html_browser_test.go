package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browserPath is the Chromium or Chrome these tests drive: $MCPCHECK_CHROME,
// else the first of the usual names on PATH. Outside CI a machine without
// one skips the tests, saying so; in CI ($CI set) it fails them, since
// .ci/run installs Debian's chromium.
func browserPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPCHECK_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium or Chrome on PATH (CI is set: .ci/run installs Debian's chromium; set MCPCHECK_CHROME to another)")
	}
	t.Skip("no Chromium or Chrome on PATH and not in CI: install chromium (apt-get install chromium) or set MCPCHECK_CHROME to run the browser tests")
	return ""
}

// page is what the browser saw of one report.
type page struct {
	errors   []string // console errors, exceptions and log entries of level error (CSP violations among them)
	requests []string // every URL the page asked for, the page itself included
}

// browse opens file in a fresh headless Chromium, lets use act on it and
// saves a screenshot of the whole page as name.png in the test's artifact
// directory. It fails the test for any console error, exception or error
// log entry (a Content-Security-Policy violation is one) and for any
// request but the page's own.
func browse(t *testing.T, file, name string, use func(ctx context.Context)) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browserPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The browser lives as long as the context of its first call: the
	// deadline is on the test's side.
	timer := time.AfterFunc(90*time.Second, cancel)
	defer timer.Stop()

	p := &page{}
	var mu sync.Mutex
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, a.Description+fmt.Sprint(a.Value))
				}
				p.errors = append(p.errors, "console: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p.errors = append(p.errors, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				p.errors = append(p.errors, "log: "+ev.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			p.requests = append(p.requests, ev.Request.URL)
		}
	})
	if err != nil {
		t.Fatalf("starting Chromium for %s: %v", name, err)
	}
	must := func(_ any, err error) {
		if err != nil {
			t.Fatalf("%s in Chromium: %v", name, err)
		}
	}
	must(chromedp.Call(ctx, runtime.Enable, cdp.Empty{}))
	must(chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}))
	must(chromedp.Call(ctx, network.Enable, network.EnableParams{}))
	u := (&url.URL{Scheme: "file", Path: file}).String()
	must(nil, chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.ID("verdict"))))
	use(ctx)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(nil, err)
	out := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %s: %s", name, out)
	mu.Lock()
	defer mu.Unlock()
	for _, r := range p.requests {
		if r != u {
			t.Errorf("%s asked for %s: the page must load nothing", name, r)
		}
	}
	for _, e := range p.errors {
		t.Errorf("%s: %s", name, e)
	}
}

// js evaluates a JavaScript expression on the page.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Errorf("%s: %v", expr, err)
	}
	return v
}

// do runs actions on the page.
func do(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Errorf("on the page: %v", err)
	}
}

// stepTimeout bounds one step on a page (a selector that never appears),
// so that a broken page fails with what it lacks, not the test's deadline.
const stepTimeout = 15 * time.Second

// htmlReport runs mcpcheck --format html on capture and writes the page
// beside the test's other files.
func htmlReport(t *testing.T, capture string) string {
	t.Helper()
	code, stdout, stderr := ownHome(t).invoke(t, "", "--format", "html", capture)
	if code != 0 && code != 1 {
		t.Fatalf("mcpcheck --format html %s: exit %d: %s", capture, code, stderr)
	}
	path := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(capture), ".jsonl")+".html")
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// visibleRows counts the findings rows shown.
const visibleRows = `Array.from(document.querySelectorAll('#findings tbody tr')).filter(r => !r.hidden).length`

// choose picks value in a filter as a person does: the change event fires.
func choose(id, value string) string {
	return fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event('change')); return s.value; })(document.getElementById(%q))`, value, id)
}

// The excerpt box of the first failing call.
const failingExcerpt = `document.getElementById(document.querySelector('.timeline .call.failed').dataset.call)`

// Done when: the report of a real capture with failures loads in headless
// Chromium with its findings in the DOM, no console error and no load;
// the filters and the search change the rows shown; clicking a failing
// call shows its request and answer.
func TestHTMLInChromiumFailingCapture(t *testing.T) {
	t.Parallel()
	browserPath(t)
	file := htmlReport(t, testdata("demo-session.jsonl"))
	browse(t, file, "demo-session", func(ctx context.Context) {
		if v := js[string](t, ctx, `document.getElementById('verdict').textContent`); v != "check failed" {
			t.Errorf("verdict %q, want check failed", v)
		}
		all := js[int](t, ctx, visibleRows)
		js[string](t, ctx, choose("filter-severity", "error"))
		errorsOnly := js[int](t, ctx, visibleRows)
		js[string](t, ctx, choose("filter-severity", "*"))
		js[string](t, ctx, choose("filter-signal", "pending"))
		pendingOnly := js[int](t, ctx, visibleRows)
		js[string](t, ctx, choose("filter-signal", "*"))
		do(t, ctx, chromedp.SendKeys(chromedp.ID("filter-search"), "never answered"))
		searched := js[int](t, ctx, visibleRows)
		shown := js[string](t, ctx, `document.getElementById('findings-shown').textContent`)
		if all != 2 || errorsOnly != 1 || pendingOnly != 1 || searched != 1 || shown != "1 of 2 shown" {
			t.Errorf("rows shown: %d in all, %d of severity error, %d of signal pending, %d searching (%q); want 2, 1, 1, 1", all, errorsOnly, pendingOnly, searched, shown)
		}
		if js[bool](t, ctx, failingExcerpt+`.hidden`) == false {
			t.Error("the failing call's excerpt shows before a click")
		}
		do(t, ctx, chromedp.Click(chromedp.CSS(".timeline .call.failed")))
		text := js[string](t, ctx, failingExcerpt+`.textContent`)
		open := js[int](t, ctx, `Array.from(document.querySelectorAll('.excerpt')).filter(e => !e.hidden).length`)
		if js[bool](t, ctx, failingExcerpt+`.hidden`) || open != 1 || !strings.Contains(text, "read_note") || !strings.Contains(text, "Access denied") {
			t.Errorf("after a click on the failing call: %d excerpts open, text %q; want its request and answer alone", open, text)
		}
	})
}

// A clean real capture: the page says it passed and loads cleanly.
func TestHTMLInChromiumCleanCapture(t *testing.T) {
	t.Parallel()
	browserPath(t)
	file := htmlReport(t, testdata("clean-stdio.jsonl"))
	browse(t, file, "clean-stdio", func(ctx context.Context) {
		verdict := js[string](t, ctx, `document.getElementById('verdict').textContent`)
		calls := js[int](t, ctx, `document.querySelectorAll('.timeline .call').length`)
		if verdict != "check passed" || calls == 0 {
			t.Errorf("verdict %q, %d calls drawn; want check passed and its calls", verdict, calls)
		}
	})
}

// hostileStrings are put into a real capture's label, tool name and error
// text; none may run, each must show as the text it is.
var hostileStrings = map[string]string{
	`"notes"`:     `<script>window.__pwned=1</script>`,
	`"read_note"`: `</textarea><img src=x onerror="window.__pwned=2">`,
	`"Access denied: ../../etc/passwd is outside /srv/notes"`: "javascript:window.__pwned=3 \u202e\u2066 </script><svg onload=\"window.__pwned=4\">",
}

// Done when: the report of a hostile capture runs no script from capture
// text, logs no error (a CSP violation would be one) and shows each
// hostile string as text.
func TestHTMLInChromiumHostileCapture(t *testing.T) {
	t.Parallel()
	browserPath(t)
	data, err := os.ReadFile(testdata("demo-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	capture := string(data)
	for from, to := range hostileStrings {
		q, _ := json.Marshal(to)
		if !strings.Contains(capture, from) {
			t.Fatalf("the capture no longer holds %s", from)
		}
		capture = strings.ReplaceAll(capture, from, string(q))
	}
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	file := htmlReport(t, path)
	browse(t, file, "hostile", func(ctx context.Context) {
		do(t, ctx, chromedp.Click(chromedp.CSS(".timeline .call.failed")))
		if pwned := js[string](t, ctx, `String(window.__pwned)`); pwned != "undefined" {
			t.Errorf("a script from the capture ran: window.__pwned = %s", pwned)
		}
		scripts := js[int](t, ctx, `document.scripts.length`)
		planted := js[int](t, ctx, `document.images.length + document.querySelectorAll('svg svg, textarea, [onload], [onerror]').length`)
		if scripts != 1 || planted != 0 {
			t.Errorf("%d scripts, %d elements from the capture in the DOM; want the page's one script and none", scripts, planted)
		}
		body := js[string](t, ctx, `document.body.innerText`)
		for _, s := range []string{`<script>window.__pwned=1</script>`, `</textarea><img src=x onerror="window.__pwned=2">`, `javascript:window.__pwned=3`, `\u202e`} {
			if !strings.Contains(body, s) {
				t.Errorf("the page does not show %q as text", s)
			}
		}
	})
}
