package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"
	"github.com/mcpcheck/mcpcheck/usage"
)

// largeEnv runs the large hostile cases (and the 1 GiB capture of
// rss_test.go): a million findings, a 5 GB gzip bomb, 200,000 sessions, a
// million calls. Minutes each; the default cases are the same shapes,
// smaller, under the same bounds.
const largeEnv = "MCPCHECK_LARGE_CAPTURE"

// hostileCase is one input an attacker, or a broken recorder, hands
// mcpcheck, checked in a child process whose peak resident memory (VmHWM)
// and time are measured.
type hostileCase struct {
	name  string
	size  caseSize
	input func() io.Reader
	// file, when set, is the name the input is written to in the case's
	// directory, and checked from there instead of from stdin.
	file string
	// cache, when set, is the files of a directory (an mcp-rewind cache)
	// written in the case's directory and checked instead of input.
	cache map[string]func() io.Reader
	// args follow "check"; OUT in an argument is the case's directory, and
	// allFormats adds every format: github on stdout (with a step summary),
	// text, json, junit and sarif as --output files.
	args       []string
	allFormats bool
	exit       int
	within     time.Duration // CPU time bound (wall time: 30 s more), 0 for none
	rss        int64         // peak resident memory bound
	stdout     []string      // fragments of stdout, in order
	stderr     []string      // fragments of stderr
	counts     map[string]int
	check      func(t *testing.T, dir string, stdout string)
}

const mib = 1 << 20

// caseSize says when a case runs.
type caseSize uint8

const (
	always    caseSize = iota
	smallOnly          // the small version of a large case: without MCPCHECK_LARGE_CAPTURE=1
	largeOnly          // with MCPCHECK_LARGE_CAPTURE=1
)

func hostileCases() []hostileCase {
	chatty := func(lines int) hostileCase {
		return hostileCase{
			input: func() io.Reader { return sessiontest.Chatty(lines) }, allFormats: true,
			exit: 1, rss: 64 * mib, counts: map[string]int{"invalid": lines},
		}
	}
	pending := func(n int) hostileCase {
		// Resident memory under a loaded machine is no measure of what is
		// kept: session's TestWaitingSessionsCostNoHeap counts it (nothing
		// a waiting session, on the heap after a collection); the bound
		// here catches a runaway (it was 184 MiB at 1M sessions; a loaded
		// machine's late collections reach 90 MiB at 100k now and then).
		return hostileCase{
			input: func() io.Reader { return sessiontest.PendingSessions(n) }, allFormats: true,
			exit: 0, rss: 128 * mib, counts: map[string]int{"pending": n},
		}
	}
	pendingText := func(n int) hostileCase {
		c := pending(n)
		c.allFormats, c.counts = false, nil // the default text report on stdout, no files to count
		c.stdout = []string{fmt.Sprintf("1 capture, %d sessions: nothing fails the gate; %d other findings, not gated; check passed", n, n)}
		return c
	}
	pings := func(n int) hostileCase {
		// one session follows at most session.MaxOpenCalls of them; the
		// oldest are one finding saying how many were dropped
		return hostileCase{
			input: func() io.Reader { return sessiontest.Pings(n) }, exit: 0, rss: 64 * mib,
			stdout: []string{fmt.Sprintf("%d requests were still open when more than 10000 were, and mcpcheck stopped following them", n-10_000)},
		}
	}
	labels := func(n int, rss int64) hostileCase {
		// one run records at most baseline.MaxRecordings files, and follows
		// and keeps at most usage.MaxLabels and baseline.MaxLabels labels;
		// 20k labels measured 120-131 MiB at 88e8f32, 80.7 MiB at 681e02c
		// before those caps, and 100k 393 MiB
		c := hostileCase{
			input: func() io.Reader { return sessiontest.Labels(n) }, args: []string{"--record-baseline", "--fail-on", "error,invalid,warn", "--baseline", "OUT/baselines"}, exit: 0, rss: rss,
			check: func(t *testing.T, dir, _ string) {
				entries, _ := os.ReadDir(filepath.Join(dir, "baselines"))
				if len(entries) != baseline.MaxRecordings {
					t.Errorf("%d baseline files for %d labels, want %d", len(entries), n, baseline.MaxRecordings)
				}
			},
		}
		if n > usage.MaxLabels {
			c.stdout = []string{fmt.Sprintf("note: %d server labels followed, the most a run keeps: the usage and coverage of %d sessions under later labels were not followed", usage.MaxLabels, n-usage.MaxLabels)}
		}
		return c
	}
	calls := func(n int) hostileCase {
		// clean: sessions of 20,000 calls, all live to the end of the file
		return hostileCase{
			input: func() io.Reader { return sessiontest.CleanCalls(n, 20_000) },
			args:  []string{"--output", "sarif=OUT/out.sarif", "--output", "junit=OUT/out.xml", "--output", "json=OUT/out.json"},
			exit:  0, rss: 48 * mib, stdout: []string{"check passed"},
		}
	}
	busy := func(n int, rss int64) hostileCase {
		// a busy CI run's mix (sessiontest.Calls): about 2% of the calls are
		// findings, kept until their session ends, and 50 sessions of 20,000
		// calls are open at once: memory follows those findings (at most
		// 1,000 per rule and session) and each session's bounded state
		return hostileCase{
			input: func() io.Reader { return sessiontest.Calls(n, 20_000) },
			args:  []string{"--output", "sarif=OUT/out.sarif", "--output", "junit=OUT/out.xml", "--output", "json=OUT/out.json"},
			exit:  1, rss: rss, stdout: []string{"(tool-error)", "check failed: error"},
		}
	}
	named := func(c hostileCase, name string, size caseSize) hostileCase {
		c.name, c.size = name, size
		return c
	}
	bigOne := func(name string, size caseSize, file string, r func() io.Reader, rss int64) hostileCase {
		return hostileCase{name: name, size: size, file: file, input: r, exit: 1, rss: rss, stdout: []string{"(tool-error)", "check failed: error"}}
	}
	fast := func(name string, r func() io.Reader, stderr string) hostileCase {
		return hostileCase{name: name, input: r, exit: exitUsage, within: time.Second, rss: 64 * mib, stderr: []string{stderr}}
	}
	// the bomb: a chatty capture of 6.7 GB (about 157 bytes a line)
	bomb := named(chatty(43_000_000), "gzip bomb of 43M such lines, expanding to 6.7 GB", largeOnly)
	bomb.input = func() io.Reader { return sessiontest.Gzipped(sessiontest.Chatty(43_000_000)) }
	smallBomb := named(chatty(400_000), "gzip bomb of 400k such lines, expanding to 63 MB", smallOnly)
	smallBomb.input = func() io.Reader { return sessiontest.Gzipped(sessiontest.Chatty(400_000)) }

	return []hostileCase{
		named(chatty(1_000_000), "1M non-JSON stdout lines", largeOnly),
		named(chatty(100_000), "100k non-JSON stdout lines", smallOnly),
		bomb,
		smallBomb,
		named(pending(200_000), "200k sessions of one unanswered request", largeOnly),
		named(pending(20_000), "20k sessions of one unanswered request", smallOnly),
		named(pending(1_000_000), "1M sessions of one unanswered request", largeOnly),
		// past the live window a session costs no memory: 1M as 10k
		named(pendingText(10_000), "10k one-request sessions (text)", always),
		named(pendingText(100_000), "100k one-request sessions (text)", largeOnly),
		named(pendingText(1_000_000), "1M one-request sessions (text)", largeOnly),
		named(pings(1_000_000), "1M unanswered pings of one session", largeOnly),
		named(pings(100_000), "100k unanswered pings of one session", smallOnly),
		named(labels(100_000, 80*mib), "100k labels, each a baseline to record", largeOnly),
		named(labels(20_000, 80*mib), "20k labels, each a baseline to record", largeOnly),
		named(labels(1_500, 64*mib), "1,500 labels, each a baseline to record", smallOnly),
		// one envelope or HAR entry in at most 1.5 times its size: the
		// value is gathered in parts joined once, and a HAR body decoded
		// in the entry's own bytes. Measured 229 MiB for 200 MiB (it was
		// 299 MiB, and a HAR entry 614 MiB), 43 MiB for 20 MiB (86 MiB,
		// and 81 MiB)
		bigOne("an isError answer of 200 MiB in one envelope", largeOnly, "", func() io.Reader { return sessiontest.BigAnswer(200 << 20) }, 300*mib),
		bigOne("an isError answer of 200 MiB in one envelope, a file", largeOnly, "big.jsonl", func() io.Reader { return sessiontest.BigAnswer(200 << 20) }, 300*mib),
		bigOne("an isError answer of 200 MiB in one HAR entry", largeOnly, "", func() io.Reader { return sessiontest.BigHAR(200 << 20) }, 300*mib),
		bigOne("an isError answer of 200 MiB in one HAR entry, a file", largeOnly, "big.har", func() io.Reader { return sessiontest.BigHAR(200 << 20) }, 300*mib),
		// past the limit, the record's first 256 MiB are read: its request
		// and the isError before the cut (spec §2.1, fail closed)
		bigOne("an isError answer past the limit in one envelope (300 MiB)", largeOnly, "", func() io.Reader { return bigAnswer(300<<20, true) }, 320*mib),
		bigOne("an isError answer past the limit in one HAR entry (300 MiB)", largeOnly, "", func() io.Reader { return overLimitHAR(300 << 20) }, 320*mib),
		// playwright writes a body's "encoding" after its "text": decoded in
		// its own bytes, and past the cut taken for base64 by its letters
		bigOne("an isError answer of 200 MiB in base64 in one HAR entry", largeOnly, "", func() io.Reader { return overLimitBase64HAR(200 << 20) }, 300*mib),
		bigOne("an isError answer in base64 past the limit in one HAR entry, its encoding after its text (300 MiB)", largeOnly, "", func() io.Reader { return overLimitBase64HAR(300 << 20) }, 320*mib),
		bigOne("an isError answer past the limit in one LogRocket event (300 MiB)", largeOnly, "", func() io.Reader { return overLimitEvents(300 << 20) }, 320*mib),
		bigOne("an isError answer of 200 MiB in one Claude Desktop log line", largeOnly, "", func() io.Reader { return bigDesktopLine(200 << 20) }, 300*mib),
		bigOne("an isError answer of 200 MiB in one call of mcpsnoop's HAR export", largeOnly, "", func() io.Reader { return bigCallHAR(200 << 20) }, 300*mib),
		bigOne("an isError answer of 20 MiB in one call of mcpsnoop's HAR export", smallOnly, "", func() io.Reader { return bigCallHAR(20 << 20) }, 56*mib),
		bigOne("an isError answer of 200 MiB in one LogRocket event", largeOnly, "", func() io.Reader { return bigLogRocketEvent(200 << 20) }, 300*mib),
		bigOne("an isError answer of 20 MiB in one LogRocket event", smallOnly, "", func() io.Reader { return bigLogRocketEvent(20 << 20) }, 56*mib),
		bigOne("an isError answer of 20 MiB in one envelope", smallOnly, "", func() io.Reader { return sessiontest.BigAnswer(20 << 20) }, 56*mib),
		bigOne("an isError answer of 20 MiB in one Claude Desktop log line", smallOnly, "", func() io.Reader { return bigDesktopLine(20 << 20) }, 56*mib),
		bigOne("an isError answer of 20 MiB in one HAR entry", smallOnly, "", func() io.Reader { return sessiontest.BigHAR(20 << 20) }, 56*mib),
		bigOne("an isError answer of 20 MiB in one HAR entry, a file", smallOnly, "big.har", func() io.Reader { return sessiontest.BigHAR(20 << 20) }, 56*mib),
		{
			// written indented level by level, a 30 KB capture made a
			// 4.4 MB baseline (31 KB: 150 MB in the issue)
			name: "a tool schema nested 1,200 deep, its baseline recorded", input: func() io.Reader { return sessiontest.DeepSchema(1200) },
			args: []string{"--record-baseline", "--fail-on", "error,invalid,warn", "--baseline", "OUT/baselines"}, exit: 0, rss: 64 * mib, within: 10 * time.Second,
			check: func(t *testing.T, dir, _ string) {
				path := filepath.Join(dir, "baselines", baseline.FileName("deep"))
				info, err := os.Stat(path)
				if err != nil || info.Size() > 40_000 {
					t.Errorf("baseline %v of %d bytes for a 30 KB capture", err, info.Size())
				}
			},
		},
		// tool-poisoning read such a description at 1 MB/s (16 MB: 93 s
		// on a loaded machine); now 0.3 s of CPU. One poisoned at its end
		// is still seen there (security is not in the default gate).
		{name: "a 16 MB tool description dense with the words instruction patterns need", input: func() io.Reader { return sessiontest.DenseListing(16<<20, "") },
			exit: 0, rss: 128 * mib, within: 30 * time.Second, stdout: []string{"check passed"}},
		{name: "the same description with an instruction block at its end", input: func() io.Reader { return sessiontest.DenseListing(16<<20, " <IMPORTANT>") },
			exit: 0, rss: 128 * mib, within: 30 * time.Second, stdout: []string{`<stdin>:2: error tool "read" description: instruction block "<IMPORTANT>" [fingerprint`, `(tool-poisoning)`}},
		named(calls(1_000_000), "1M calls with three --output files", largeOnly),
		named(calls(100_000), "100k calls with three --output files", smallOnly),
		// measured: 31 MiB at 1M calls; at 100k 27–29 MiB alone and up to
		// 33.1 MiB while CI's other test binaries load both cores (the
		// collector runs late): the bound catches growth, not a budget
		named(busy(1_000_000, 40*mib), "1M calls of a busy CI run (20k findings) with three --output files", largeOnly),
		named(busy(100_000, 40*mib), "100k calls of a busy CI run (2k findings) with three --output files", smallOnly),

		// Input that can never be a capture ends fast, however long.
		fast("endless zero bytes on stdin", func() io.Reader { return sessiontest.Endless("", 0) }, "not a capture"),
		{name: "/dev/zero", args: []string{"/dev/zero"}, exit: exitUsage, within: time.Second, rss: 64 * mib, stderr: []string{"/dev/zero:1: not a capture"}},
		fast("endless line of non-envelope bytes", func() io.Reader { return sessiontest.Endless("", 'x') }, "not a capture"),
		fast("endless opening braces", func() io.Reader { return sessiontest.Endless("", '{') }, "not a capture"),
		fast("endless white space", func() io.Reader { return sessiontest.Endless("", ' ') }, "more than 1 MiB of white space"),
		fast("endless string in a first envelope", func() io.Reader {
			return sessiontest.Endless(`{"session_id":"s1","raw":{"jsonrpc":"2.0","id":1,"result":{"text":"`, 'a')
		}, "no envelope of a session in its first 1 MiB"),
		// one with a direction starts as envelopes do, so it is read on,
		// to the envelope limit: measured 1.3 s and 297 MiB (it was endless
		// and held 735 MiB)
		{name: "endless string in a first envelope with a direction", input: func() io.Reader {
			return sessiontest.Endless(`{"session_id":"s1","direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"text":"`, 'a')
		}, exit: exitUsage, within: 20 * time.Second, rss: 384 * mib,
			stderr: []string{"<stdin>:1: its first envelope is larger than 256 MiB, the most mcpcheck reads of one envelope; nothing was checked"}},
		fast("endless envelopes without a session id", func() io.Reader {
			return io.MultiReader(repeatString(`{"session_id":"","seq":1,"direction":"c2s","raw":{}}`+"\n", 1<<20), sessiontest.Endless("", '\n'))
		}, "no envelope of a session in its first 1 MiB"),

		// Damage for sessions not seen yet: bounded, counted, no false gaps.
		{
			name: "1,500 torn envelopes before their session appears",
			input: func() io.Reader {
				var b strings.Builder
				b.WriteString(`{"session_id":"other","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
				for i := 1; i <= 1500; i++ {
					fmt.Fprintf(&b, `{"session_id":"late","seq":%d,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"step`+"\n", i)
				}
				b.WriteString(`{"session_id":"late","seq":1501,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
				return strings.NewReader(b.String())
			},
			args: []string{"--fail-on", "none"}, exit: 0, rss: 64 * mib,
			stdout: []string{"500 more findings of this rule not listed", "session late: ", "missing_frames=0", "incomplete=1500"},
		},
		// Damage before any session: a thousand kept, the rest counted.
		{
			name: "1,501 unreadable envelopes before the first session",
			input: func() io.Reader {
				var b strings.Builder
				b.WriteString(`{"session_id":"","seq":1,"direction":"c2s"}` + "\n")
				for i := 2; i <= 1501; i++ {
					fmt.Fprintf(&b, `{"seq":%d,"direction":"c2s","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}`+"\n", i)
				}
				b.WriteString(`{"session_id":"first","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
				return strings.NewReader(b.String())
			},
			args: []string{"--fail-on", "none"}, exit: 0, rss: 64 * mib,
			stdout: []string{"<stdin>:1: warning unreadable envelope: an envelope without a session_id", "501 more findings of this rule not listed", "session first: ", "incomplete=1501"},
		},
		// A truncated .gz is one fault.
		{
			name: "truncated .gz",
			input: func() io.Reader {
				data, _ := os.ReadFile(testdata("demo-session.jsonl"))
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write(data)
				zw.Close()
				return bytes.NewReader(b.Bytes()[:b.Len()*2/3])
			},
			args: []string{"--fail-on", "none"}, exit: 0, rss: 64 * mib,
			stdout: []string{"the compressed capture breaks off inside an envelope"},
			check: func(t *testing.T, _ string, stdout string) {
				if n := strings.Count(stdout, "(truncated-capture)"); n != 1 {
					t.Errorf("%d truncated-capture findings, want one:\n%s", n, stdout)
				}
			},
		},
		// Lines that end in a lone CR are numbered.
		{
			name: "lines ending in CR",
			input: func() io.Reader {
				return strings.NewReader(`{"session_id":"s","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\r" +
					`{"session_id":"s","seq":2,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\r" +
					`{"session_id":"s","seq":3,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":7,"result":{}}}` + "\r")
			},
			args: []string{"--fail-on", "none"}, exit: 0, rss: 64 * mib,
			stdout: []string{"<stdin>:3: warning server answered id 7, which no client request used"},
		},
		// A torn answer excuses the request it followed, not a later one.
		{
			name: "a torn answer and a later unanswered request",
			input: func() io.Reader {
				return strings.NewReader(`{"session_id":"s","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}}` + "\n" +
					`{"session_id":"s","seq":2,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"cut` + "\n" +
					`{"session_id":"s","seq":3,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy"}}}` + "\n")
			},
			args: []string{"--fail-on", "none"}, exit: 0, rss: 64 * mib,
			stdout: []string{`<stdin>:3: warning client tools/call "deploy" (id 2) was never answered`},
			check: func(t *testing.T, _ string, stdout string) {
				if strings.Contains(stdout, `"search" (id 1) was never answered`) {
					t.Errorf("the request the torn answer followed is reported:\n%s", stdout)
				}
			},
		},
		// Ids are read exactly.
		{
			name: "ids 1e400 and 1e-400",
			input: func() io.Reader {
				return strings.NewReader(`{"session_id":"s","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1e400,"method":"ping"}}` + "\n" +
					`{"session_id":"s","seq":2,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1e-400,"method":"ping"}}` + "\n")
			},
			args: []string{"--fail-on", "none"}, exit: 0, rss: 64 * mib,
			stdout: []string{"has the id 1e400, an integer too large for any peer's integer type", "has the fractional id 1e-400"},
		},
		// A damaged envelope's surviving seq is not counted as missing.
		{
			name: "a gap before a damaged envelope",
			input: func() io.Reader {
				return strings.NewReader(`{"session_id":"s","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n" +
					`{"session_id":"s","seq":3,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"cut` + "\n" +
					`{"session_id":"s","seq":4,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
			},
			args: []string{"--fail-on", "none"}, exit: 0, rss: 64 * mib,
			stdout: []string{"<stdin>:2: warning 1 frame is missing before seq 3: seq 2 was not recorded", "missing_frames=1"},
		},

		// One value held about once more (issue 21): a distilled mcp-rewind
		// result was copied into its answer (414 MiB for 200 MiB), a single
		// LogRocket event kept apart and copied twice (613 MiB).
		bigCache("an isError answer of 200 MiB in one distilled result of an mcp-rewind cache", largeOnly, bigRewindCache(200<<20), 300*mib),
		bigCache("an isError answer of 20 MiB in one distilled result of an mcp-rewind cache", smallOnly, bigRewindCache(20<<20), 56*mib),
		bigOne("an isError answer of 200 MiB in one single LogRocket event", largeOnly, "", func() io.Reader { return bigLogRocketLine(200 << 20) }, 300*mib),
		bigOne("an isError answer of 200 MiB in one single LogRocket event, a file", largeOnly, "big.logrocket.jsonl", func() io.Reader { return bigLogRocketLine(200 << 20) }, 300*mib),
		bigOne("an isError answer of 20 MiB in one single LogRocket event", smallOnly, "", func() io.Reader { return bigLogRocketLine(20 << 20) }, 56*mib),
		// A tool listing is held as one copy of its bytes and about 20 bytes
		// a tool (it was five times its size): measured 49 MiB for 20k
		// tools (was 89 MiB) and 215 MiB for 200k (was 477 MiB); what is
		// left at 200k is the collector's slack over a live heap of the
		// envelope and its copy (~95 MB) while the listing is judged. Its
		// schemas are judged once for the rules that judge them all, and a
		// plain one from its bytes (each was compiled twice): 200k tools
		// take 2.6–2.7 s of CPU (was 16–21 s) and 197–201 MiB, 20k 0.6 s and 44 MiB.
		// The set keeps a large envelope's own buffer instead of a copy
		// (Frame.Lasting): the live heap while the 200k listing is judged
		// fell from 90 to 48 MB, peak RSS from 147 to 130 MiB; the peak is
		// now the coverage summary of 200k tools at the end of the run.
		// Tools never called are kept by the usage collector as their
		// names and properties (28 bytes a tool, where a record took 218):
		// 200k tools 128 → 96 MiB, 2.8 → 2.2 s.
		manyTools(20_000, always, 64*mib),
		manyTools(200_000, largeOnly, 120*mib),
		// A request's params held once (issue 21): a record that keeps them
		// as its body only had them copied into the request it makes (413
		// MiB for 200 MiB of tool arguments).
		bigOne("tool arguments of 200 MiB in one LogRocket event", largeOnly, "", func() io.Reader { return bigArgsLogRocket(200<<20, false) }, 300*mib),
		bigOne("tool arguments of 20 MiB in one LogRocket event", smallOnly, "", func() io.Reader { return bigArgsLogRocket(20<<20, false) }, 56*mib),
		bigOne("tool arguments of 200 MiB in one single LogRocket event", largeOnly, "", func() io.Reader { return bigArgsLogRocket(200<<20, true) }, 300*mib),
		bigOne("tool arguments of 20 MiB in one single LogRocket event", smallOnly, "", func() io.Reader { return bigArgsLogRocket(20<<20, true) }, 56*mib),
		bigOne("tool arguments of 200 MiB in one call of mcpsnoop's HAR export", largeOnly, "", func() io.Reader { return bigArgsCallHAR(200 << 20) }, 300*mib),
		bigOne("tool arguments of 20 MiB in one call of mcpsnoop's HAR export", smallOnly, "", func() io.Reader { return bigArgsCallHAR(20 << 20) }, 56*mib),
		// a single LogRocket event past the limit is read as far as the
		// limit, as one of a batch is: it was skipped, without tool-error
		bigOne("an isError answer past the limit in one single LogRocket event (300 MiB)", largeOnly, "", func() io.Reader { return overLimitSingleEvents(300 << 20) }, 320*mib),
	}
}

// manyTools is a session listing n tools in one envelope, four of them
// called: a clean capture.
func manyTools(n int, size caseSize, rss int64) hostileCase {
	return hostileCase{
		name: fmt.Sprintf("a tools/list of %dk tools in one envelope", n/1000), size: size,
		input: func() io.Reader { return sessiontest.ManyTools(n) }, exit: 0, rss: rss,
		stdout: []string{"session tools-1: errors=0 invalid=0 warnings=0 mismatches=0 pending=0", fmt.Sprintf("tools 4/%d called successfully", n), "nothing fails the gate; check passed"},
	}
}

// bigCache is a case of an mcp-rewind cache whose tools/call is answered
// with an isError result: exit 1 with the tool's error.
func bigCache(name string, size caseSize, files map[string]func() io.Reader, rss int64) hostileCase {
	return hostileCase{name: name, size: size, cache: files, exit: 1, rss: rss, stdout: []string{"(tool-error)", "check failed: error"}}
}

func repeatString(s string, n int) io.Reader {
	return strings.NewReader(strings.Repeat(s, n/len(s)+1))
}

// TestHostileInputs runs every hostile case in a child process and holds it
// to its outcome, its memory bound and its time bound. The figures are
// logged (go test -v) for the README's table.
func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the hostile-input processes")
	}
	large := os.Getenv(largeEnv) == "1"
	for _, c := range hostileCases() {
		if (c.size == largeOnly && !large) || (c.size == smallOnly && large) {
			continue // the large cases replace their small versions
		}
		t.Run(c.name, func(t *testing.T) { runHostile(t, c) })
	}
}

var summaryLine = regexp.MustCompile(`(?m)^session \S+: errors=(\d+) invalid=(\d+) warnings=(\d+) mismatches=(\d+) pending=(\d+)`)

func runHostile(t *testing.T, c hostileCase) {
	for _, a := range c.args {
		if strings.HasPrefix(a, "/dev/") {
			if _, err := os.Stat(a); err != nil {
				t.Skipf("no %s here", a)
			}
		}
	}
	dir := t.TempDir()
	// --verbose: these cases pin findings one by one and every count.
	args := []string{"check", "--verbose"}
	for _, a := range c.args {
		args = append(args, strings.ReplaceAll(a, "OUT", dir))
	}
	if c.allFormats {
		args = append(args, "--format", "github", "--output", "text="+filepath.Join(dir, "out.txt"),
			"--output", "json="+filepath.Join(dir, "out.json"), "--output", "junit="+filepath.Join(dir, "out.xml"),
			"--output", "sarif="+filepath.Join(dir, "out.sarif"))
	}
	switch {
	case c.cache != nil:
		args = append(args, writeCache(t, filepath.Join(dir, "cache"), c.cache))
	case c.file != "":
		args = append(args, writeInput(t, filepath.Join(dir, c.file), c.input()))
	case c.input != nil:
		args = append(args, "-")
	}
	peakFile := filepath.Join(dir, "status")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1", peakFileEnv+"="+peakFile,
		"MCPCHECK_HOME="+filepath.Join(dir, "home"), "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "summary.md"))
	if c.input != nil && c.file == "" {
		cmd.Stdin = c.input()
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if code != c.exit {
		t.Fatalf("exit %d, want %d; stderr %q; stdout:\n%.3000s", code, c.exit, stderr.String(), out)
	}
	if c.exit == exitUsage && out != "" {
		t.Errorf("stdout on exit 2: %.500q", out)
	}
	// The bound is the child's CPU time, which other work on the machine
	// hardly moves (a loaded CI machine made 1 s of wall time 2.5 s);
	// wall time, past half a minute more, still catches a child that
	// waits on something instead of working.
	if c.within > 0 && cmd.ProcessState != nil {
		if cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); cpu > c.within {
			t.Errorf("took %v of CPU, more than %v", cpu.Round(time.Millisecond), c.within)
		}
		if elapsed > c.within+30*time.Second {
			t.Errorf("took %v, more than %v and half a minute", elapsed.Round(time.Millisecond), c.within)
		}
	}
	rest := out
	for _, w := range c.stdout {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("stdout lacks %q (in order):\n%.5000s", w, out)
		}
		rest = rest[i+len(w):]
	}
	for _, w := range c.stderr {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q: %q", w, stderr.String())
		}
	}
	if c.counts != nil {
		checkHostileCounts(t, dir, c.counts)
	}
	if c.check != nil {
		c.check(t, dir, out)
	}
	// The outcome is checked under the race detector too; the memory
	// budget is not.
	racedetect.SkipUnderRace(t)
	peak := int64(-1)
	if status, err := os.ReadFile(peakFile); err == nil {
		peak, _ = peakRSS(status)
	} else if c.exit != exitUsage && runtime.GOOS == "linux" {
		t.Errorf("the child wrote no status: %v", err)
	}
	if peak > c.rss {
		t.Errorf("peak RSS %.1f MiB exceeds %d MiB", float64(peak)/mib, c.rss/mib)
	}
	t.Logf("figure: %s | peak RSS %.1f MiB | %.1f s | exit %d", c.name, float64(peak)/mib, elapsed.Seconds(), code)
}

// bigDesktopLine is a Claude Desktop server log whose tools/call gets an
// isError answer of about size bytes, logged on one line.
func bigDesktopLine(size int) io.Reader {
	const at = "2025-04-02T02:11:32.5%02dZ [big] [info] Message from %s: "
	msg := func(n int, from, json string) string { return fmt.Sprintf(at, n, from) + json + "\n" }
	return io.MultiReader(strings.NewReader(
		msg(1, "client", `{"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}},"jsonrpc":"2.0","id":0}`)+
			msg(2, "server", `{"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}},"jsonrpc":"2.0","id":0}`)+
			msg(3, "client", `{"method":"notifications/initialized","jsonrpc":"2.0"}`)+
			msg(4, "client", `{"method":"tools/call","params":{"name":"dump","arguments":{}},"jsonrpc":"2.0","id":1}`)+
			fmt.Sprintf(at, 5, "server")+`{"result":{"content":[{"type":"text","text":"`),
		strings.NewReader(strings.Repeat("a", size)), strings.NewReader(`"}],"isError":true},"jsonrpc":"2.0","id":1}`+"\n"))
}

// bigCallHAR is mcpsnoop's call-level HAR export of a tools/call whose
// isError answer is about size bytes.
func bigCallHAR(size int) io.Reader {
	call := func(started, url, params string, status int, answer string) string {
		return fmt.Sprintf(`{"startedDateTime":%q,"time":5,"request":{"method":"POST","url":%q,"headers":[],"postData":{"mimeType":"application/json","text":%s}},`+
			`"response":{"status":%d,"statusText":"","headers":[],"content":{"mimeType":"application/json","text":%s`, started, url, params, status, answer)
	}
	return io.MultiReader(strings.NewReader(`{"log":{"version":"1.2","creator":{"name":"mcpsnoop","version":"1"},"entries":[`+
		call("2026-09-01T10:00:00.000Z", "mcp://big/initialize", `"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}"`, 200,
			`"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}"`)+`}}},`+
		call("2026-09-01T10:00:01.000Z", "mcp://big/tools/call/dump", `"{\"name\":\"dump\",\"arguments\":{}}"`, 500, `"{\"content\":[{\"type\":\"text\",\"text\":\"`)),
		strings.NewReader(strings.Repeat("a", size)), strings.NewReader(`\"}],\"isError\":true}"}}}]}}`+"\n"))
}

// bigLogRocketEvent is a LogRocket batch whose tools/call event has an
// isError result of about size bytes.
func bigLogRocketEvent(size int) io.Reader {
	return io.MultiReader(strings.NewReader(`{"appID":"acme/big","sdk":{"name":"logrocket-mcp-replay-go","version":"0.1.0"},"events":[`+
		`{"type":"mcp_request","startTime":1788858000000,"durationMs":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},`+
		`"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}},`+
		`{"type":"mcp_request","startTime":1788858001000,"durationMs":3,"method":"tools/call","params":{"name":"dump","arguments":{}},"result":{"value":{"content":[{"type":"text","text":"`),
		strings.NewReader(strings.Repeat("a", size)), strings.NewReader(`"}],"isError":true},"isError":true}}]}`+"\n"))
}

// bigRewindCache is an mcp-rewind cache whose tools/call is kept as its
// distilled result only (the file replay serves), an isError result of
// about size bytes.
func bigRewindCache(size int) map[string]func() io.Reader {
	text := func(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }
	req := func(id int, method, params string) func() io.Reader {
		return text(fmt.Sprintf(`{"url":"http://localhost:8080/mcp","method":"POST","headers":{"content-type":"application/json"},"body":{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}}`, id, method, params))
	}
	return map[string]func() io.Reader{
		"1 initialize.req.json":                       req(0, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`),
		"1 initialize.json":                           text(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`),
		"2 tools_call_dump_0123456789abcdef.req.json": req(1, "tools/call", `{"name":"dump","arguments":{}}`),
		"2 tools_call_dump_0123456789abcdef.json": func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"content":[{"type":"text","text":"`), strings.NewReader(strings.Repeat("a", size)), strings.NewReader(`"}],"isError":true}`+"\n"))
		},
	}
}

// bigLogRocketLine is LogRocket events one per line, each a single event
// rather than one of a batch, the tools/call one with an isError result
// of about size bytes.
func bigLogRocketLine(size int) io.Reader {
	return io.MultiReader(strings.NewReader(`{"type":"mcp_request","startTime":1788858000000,"durationMs":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},`+
		`"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}`+"\n"+
		`{"type":"mcp_request","startTime":1788858001000,"durationMs":3,"method":"tools/call","params":{"name":"dump","arguments":{}},"result":{"value":{"content":[{"type":"text","text":"`),
		strings.NewReader(strings.Repeat("a", size)), strings.NewReader(`"}],"isError":true},"isError":true}}`+"\n"))
}

// bigArgsLogRocket is LogRocket events, in a batch or (single) one per
// line, whose tools/call has about size bytes of arguments and an isError
// result.
func bigArgsLogRocket(size int, single bool) io.Reader {
	start, sep, end := `{"appID":"acme/big","sdk":{"name":"logrocket-mcp-replay-go","version":"0.1.0"},"events":[`, ",", "]}\n"
	if single {
		start, sep, end = "", "\n", "\n"
	}
	return io.MultiReader(strings.NewReader(start+
		`{"type":"mcp_request","startTime":1788858000000,"durationMs":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},`+
		`"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}`+sep+
		`{"type":"mcp_request","startTime":1788858001000,"durationMs":3,"method":"tools/call","params":{"name":"load","arguments":{"data":"`),
		strings.NewReader(strings.Repeat("a", size)),
		strings.NewReader(`"}},"result":{"value":{"content":[{"type":"text","text":"too large"}],"isError":true},"isError":true}}`+end))
}

// bigArgsCallHAR is mcpsnoop's call-level HAR export of a tools/call with
// about size bytes of arguments and an isError answer.
func bigArgsCallHAR(size int) io.Reader {
	return io.MultiReader(strings.NewReader(`{"log":{"version":"1.2","creator":{"name":"mcpsnoop","version":"1"},"entries":[`+
		`{"startedDateTime":"2026-09-01T10:00:00.000Z","time":5,"request":{"method":"POST","url":"mcp://big/initialize","headers":[],"postData":{"mimeType":"application/json","text":"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}"}},`+
		`"response":{"status":200,"statusText":"","headers":[],"content":{"mimeType":"application/json","text":"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}"}}},`+
		`{"startedDateTime":"2026-09-01T10:00:01.000Z","time":5,"request":{"method":"POST","url":"mcp://big/tools/call/load","headers":[],"postData":{"mimeType":"application/json","text":"{\"name\":\"load\",\"arguments\":{\"data\":\"`),
		strings.NewReader(strings.Repeat("a", size)),
		strings.NewReader(`\"}}"}},"response":{"status":500,"statusText":"","headers":[],"content":{"mimeType":"application/json","text":"{\"content\":[{\"type\":\"text\",\"text\":\"too large\"}],\"isError\":true}"}}}]}}`+"\n"))
}

// writeCache writes the files of an mcp-rewind cache in dir, and returns
// dir.
func writeCache(t *testing.T, dir string, files map[string]func() io.Reader) string {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, r := range files {
		writeInput(t, filepath.Join(dir, name), r())
	}
	return dir
}

// writeInput writes a case's input to path, and returns path.
func writeInput(t *testing.T, path string, r io.Reader) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, r); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkHostileCounts holds every format of an allFormats run to the exact
// counts: text, json and junit count every finding; the step summary too.
func checkHostileCounts(t *testing.T, dir string, counts map[string]int) {
	t.Helper()
	// Every report is read a session (or suite, or line) at a time: a report
	// of a million sessions decoded whole took the test, not mcpcheck, to
	// tens of GiB.
	jsonCounts, jsonSessions := streamJSONCounts(t, filepath.Join(dir, "out.json"))
	junitCounts, suites := streamJUnitCounts(t, filepath.Join(dir, "out.xml"))
	textCounts := streamTextCounts(t, filepath.Join(dir, "out.txt"))
	var log struct {
		Runs []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "out.sarif")) // at most 5,000 results
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("sarif: %v", err)
	}
	for sig, want := range counts {
		if got := jsonCounts[sig]; got != want {
			t.Errorf("json counts %d %s findings, want %d", got, sig, want)
		}
		if got := textCounts[sig]; got != want {
			t.Errorf("text counts %d %s findings, want %d", got, sig, want)
		}
		if junitCounts[sig] == 0 && want > 0 {
			t.Errorf("junit shows no %s findings", sig)
		}
	}
	if jsonSessions != suites {
		t.Errorf("json has %d sessions, junit %d suites", jsonSessions, suites)
	}
	if n := len(log.Runs[0].Results); n == 0 || n > 5000 {
		t.Errorf("sarif has %d results", n)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if len(summary) == 0 || len(summary) > mib {
		t.Errorf("step summary of %d bytes", len(summary))
	}
}

// streamJSONCounts adds up the JSON report's counts per signal, one session
// at a time, and counts its sessions.
func streamJSONCounts(t *testing.T, path string) (map[string]int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	counts, sessions := map[string]int{}, 0
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("json: not an object: %v", err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatalf("json: %v", err)
		}
		if key != "sessions" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatalf("json: %s: %v", key, err)
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			t.Fatalf("json: sessions is not an array: %v", err)
		}
		for dec.More() {
			var s struct {
				Counts map[string]int `json:"counts"`
			}
			if err := dec.Decode(&s); err != nil {
				t.Fatalf("json: session %d: %v", sessions, err)
			}
			sessions++
			for sig, n := range s.Counts {
				counts[sig] += n
			}
		}
		if _, err := dec.Token(); err != nil {
			t.Fatalf("json: %v", err)
		}
	}
	return counts, sessions
}

// streamJUnitCounts adds up, per signal, the findings the JUnit report
// shows (a failure's count, or the lines of a passing case's output), one
// test case at a time, and counts its suites.
func streamJUnitCounts(t *testing.T, path string) (map[string]int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("junit: %v", err)
	}
	defer f.Close()
	dec := xml.NewDecoder(bufio.NewReader(f))
	counts, suites := map[string]int{}, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return counts, suites
		}
		if err != nil {
			t.Fatalf("junit: %v", err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch start.Name.Local {
		case "testsuite":
			suites++
		case "testcase":
			var tc junit.Testcase
			if err := dec.DecodeElement(&tc, &start); err != nil {
				t.Fatalf("junit: %v", err)
			}
			if tc.Failure != nil {
				var n int
				fmt.Sscan(tc.Failure.Message, &n)
				counts[tc.Name] += n
			} else if tc.SystemOut != nil {
				counts[tc.Name] += strings.Count(tc.SystemOut.Data, "\n") // listed ones; folded ones below
			}
		}
	}
}

// streamTextCounts adds up the invalid and pending findings of the text
// report's summary lines, a line at a time.
func streamTextCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("text: %v", err)
	}
	defer f.Close()
	counts := map[string]int{}
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 64<<10), 16<<20)
	for lines.Scan() {
		for _, m := range summaryLine.FindAllStringSubmatch(lines.Text(), -1) {
			var invalid, pending int
			fmt.Sscan(m[2], &invalid)
			fmt.Sscan(m[5], &pending)
			counts["invalid"] += invalid
			counts["pending"] += pending
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatalf("text: %v", err)
	}
	return counts
}
