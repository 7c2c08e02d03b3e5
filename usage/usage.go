// Package usage follows what the sessions of a run did with what their
// servers offered, across all the run's captures (spec §5.2): tool, prompt
// and resource coverage per server label, per-tool calls, errors by kind
// and latency, and flaky calls — the same tool with the same canonical
// arguments succeeding in one capture and failing in another. The engine
// feeds it frames as they are read; it keeps per label and tool counters
// and a capped number of argument hashes, never frames.
package usage

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/uritemplate"
	"github.com/mcpcheck/mcpcheck/session"
)

// DefaultMaxHashes is how many distinct (server, tool, arguments) a check
// remembers by default to find flaky calls: about 50 bytes each, kept small
// so that a check's memory stays within its budget (spec §2.4); stats and
// diff, run on purpose over many captures, remember more (StatsMaxHashes).
const DefaultMaxHashes = 1 << 12

// StatsMaxHashes is the default of stats and diff.
const StatsMaxHashes = 1 << 18

// MaxLabels is how many server labels a run follows the usage of, in the
// order it meets them. Each keeps a record (about 1.4 KB with its summary
// line), and labels are chosen by whoever records: a capture that gives
// each session a label of its own would otherwise grow memory with its
// sessions. Sessions of later labels are checked as ever; they are
// counted, their usage not followed (Summary.SessionsPastLabelCap).
const MaxLabels = 10_000

// Error kinds, as reports name them.
const (
	KindToolError    = "tool-error"    // a result with isError: true
	KindJSONRPCError = "jsonrpc-error" // a JSON-RPC error answer
	KindHTTPError    = "http-error"    // an HTTP error status without a JSON-RPC answer
	KindCancelled    = "cancelled"     // cancelled before it was answered
	KindUnanswered   = "unanswered"    // never answered in the capture
)

// Collector gathers a run's usage. Its zero value is not ready: use New.
type Collector struct {
	// KeepDefinitions keeps each label's latest complete tool listing in
	// the form a baseline compares (Server.Definitions), for diff; check
	// does not canonicalise every schema for it.
	KeepDefinitions bool

	maxHashes int
	hashes    int  // argument records kept, over every tool
	capped    bool // a record was not kept because of maxHashes

	maxLabels    int // MaxLabels, but for tests
	pastLabelCap int // sessions whose label came after maxLabels others

	file    int32 // index of the capture being read, from 0
	files   []string
	runs    int32                      // sessions seen so far: each is one run of a client against a server
	run     map[*session.Session]int32 // the open sessions' run numbers
	failed  map[int32]string           // the session id of each run that had a remembered failure
	servers map[string]*server
	open    map[*session.Call]openCall

	lastServer *server // of the latest label asked for
	lastRun    *session.Session
	lastRunN   int32 // lastRun's run number

	summary *Summary // made once, from records it lets go of (Summary)
}

// New makes a collector that remembers at most maxHashes argument records
// (DefaultMaxHashes when maxHashes <= 0).
func New(maxHashes int) *Collector {
	if maxHashes <= 0 {
		maxHashes = DefaultMaxHashes
	}
	return &Collector{maxHashes: maxHashes, maxLabels: MaxLabels, file: -1, servers: map[string]*server{}, open: map[*session.Call]openCall{}, run: map[*session.Session]int32{}, failed: map[int32]string{}}
}

type server struct {
	label     string
	sessions  int
	tools     map[string]*tool
	prompts   map[string]*item
	resources map[string]*item
	templates map[string]*templateItem // resource templates by uriTemplate
	listed    struct{ tools, prompts, resources, templates bool }
	defs      *baseline.Definitions // the latest complete tool listing, for diff

	listedOnly *listedTools // advertised tools without a record: never called
}

type item struct {
	advertised bool
	calls, ok  int64
}

// templateItem is a listed resource template: a resources/read of a URI it
// expands to counts as a call of it.
type templateItem struct {
	item
	match uritemplate.Template
}

// maxTemplates bounds the templates followed per server, and
// maxTemplateMatches the URI-against-template matches a summary makes:
// past it, the rest of the reads are not matched (their templates may
// show fewer calls than they had, never more).
const (
	maxTemplates       = 1024
	maxTemplateMatches = 1 << 22
)

// templateUse counts, per listed template, the resources/read calls of
// URIs it expands to: matched once at the end, since a template may be
// listed after the reads.
func (sv *server) templateUse() map[string]*item {
	out := make(map[string]*item, len(sv.templates))
	uris := make([]string, 0, len(sv.resources))
	for uri, it := range sv.resources {
		if it.calls > 0 {
			uris = append(uris, uri)
		}
	}
	sort.Strings(uris)
	budget := maxTemplateMatches
	for _, k := range slices.Sorted(maps.Keys(sv.templates)) {
		t := sv.templates[k]
		use := t.item
		for _, uri := range uris {
			if budget--; budget < 0 {
				break
			}
			if t.match.Match(uri) {
				it := sv.resources[uri]
				use.calls += it.calls
				use.ok += it.ok
			}
		}
		out[k] = &use
	}
	return out
}

type tool struct {
	item
	name     string          // owned: the frame's bytes are not kept
	declared []string        // input properties of the latest listing, sorted
	passed   map[string]bool // argument names ever passed
	errors   map[string]int64
	times    *callTimes // nil until a call is timed: most tools of a large listing never are
	chains   int64      // calls that took more than one round trip
	captures int
	lastFile int32
	args     map[argKey]argRecord
}

// notePassed records the argument names of one call; a name seen before
// costs no allocation.
func (t *tool) notePassed(args []byte) {
	i := jsonscan.SkipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return
	}
	for i++; ; {
		i = jsonscan.SkipSpace(args, i)
		if i >= len(args) || args[i] == '}' {
			return
		}
		if args[i] == ',' {
			i++
			continue
		}
		end, err := jsonscan.SkipString(args, i)
		if err != nil {
			return
		}
		name := args[i:end] // quoted
		plain := name[1 : len(name)-1]
		if bytes.IndexByte(plain, '\\') >= 0 || !t.passed[string(plain)] {
			if t.passed == nil {
				t.passed = map[string]bool{}
			}
			if s, ok := jsonscan.String(name); ok && !t.passed[s] {
				t.passed[s] = true
			}
		}
		i = jsonscan.SkipSpace(args, end)
		if i < len(args) && args[i] == ':' {
			i++
		}
		if i, err = jsonscan.SkipValue(args, i, 0); err != nil {
			return
		}
	}
}

// callTimes are a tool's call durations.
type callTimes struct {
	latency Latencies // request to final answer (a whole multi round-trip chain)
	server  Latencies // the server's share of multi round-trip chains
}

func (t *tool) timed() *callTimes {
	if t.times == nil {
		t.times = &callTimes{}
	}
	return t.times
}

type argKey uint64

// argRecord is where a tool with one set of arguments succeeded and failed
// first (run number, -1 for never). A run is a session: a capture file may
// hold several, each a client's own run against the server.
type argRecord struct {
	ok, fail         int32 // run numbers
	okFile, failFile int32 // capture indexes
	okLine, failLine int32
	failKind         uint8 // index in kinds
}

// kinds are the failure kinds an argRecord can hold, by index.
var kinds = [...]string{"", KindToolError, KindJSONRPCError, KindHTTPError}

func kindIndex(kind string) uint8 {
	for i, k := range kinds {
		if k == kind {
			return uint8(i)
		}
	}
	return 0
}

// Location is a place in a capture.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type openCall struct {
	s    *session.Session
	kind byte  // 't' tools, 'p' prompts, 'r' resources
	t    *tool // the tool called ('t'), not looked up again when it settles
	name string
	key  argKey
	run  int32
}

// File starts the next capture of the run.
func (c *Collector) File(name string) {
	c.file++
	c.files = append(c.files, name)
}

// server is label's record, made when first asked for; nil for a label
// past the cap, whose usage is not followed.
func (c *Collector) server(label string) *server {
	if sv := c.lastServer; sv != nil && sv.label == label {
		return sv // a run's calls come label after label, not one each
	}
	sv := c.servers[label]
	if sv == nil {
		if len(c.servers) >= c.maxLabels {
			return nil
		}
		sv = &server{label: label, tools: map[string]*tool{}, prompts: map[string]*item{}, resources: map[string]*item{}, templates: map[string]*templateItem{}}
		c.servers[label] = sv
	}
	c.lastServer = sv
	return sv
}

func (sv *server) tool(name string) *tool {
	t := sv.tools[name]
	if t == nil {
		name = strings.Clone(name) // kept to the run's end; a listed name shares its listing's bytes
		t = &tool{name: name, lastFile: -1}
		t.declared, t.advertised = sv.listedOnly.take(name)
		sv.tools[name] = t
	}
	return t
}

func itemOf(m map[string]*item, name string) *item {
	it := m[name]
	if it == nil {
		it = &item{}
		m[name] = it
	}
	return it
}

// Frame sees one correlated frame: a request opens a call to follow, its
// final answer settles it. It keeps no bytes of the frame.
func (c *Collector) Frame(s *session.Session, f *session.Frame) {
	if f.Call == nil || f.Call.Dir != session.ClientToServer {
		return
	}
	switch f.Pairing {
	case session.Opened, session.Reused:
		c.request(s, f)
	case session.Answered, session.Late:
		if oc, ok := c.open[f.Call]; ok {
			c.answer(&oc, f)
		}
	}
}

func (c *Collector) runOf(s *session.Session) int32 {
	if s == c.lastRun {
		return c.lastRunN
	}
	n, ok := c.run[s]
	if !ok {
		n = c.runs
		c.runs++
		c.run[s] = n
	}
	c.lastRun, c.lastRunN = s, n
	return n
}

func (c *Collector) request(s *session.Session, f *session.Frame) {
	switch f.Call.Method {
	case "tools/call":
		p, ok := f.View().CallTool()
		if !ok || !p.HasName {
			return
		}
		sv := c.server(s.Label)
		if sv == nil {
			return // a label past the cap
		}
		t := sv.tool(p.Name)
		t.notePassed(p.Arguments)
		c.open[f.Call] = openCall{s: s, kind: 't', t: t, name: t.name, key: hashArgs(p.Arguments), run: c.runOf(s)}
	case "prompts/get", "resources/read":
		if f.Call.Name == "" || c.server(s.Label) == nil {
			return
		}
		kind := byte('p')
		if f.Call.Method == "resources/read" {
			kind = 'r'
		}
		c.open[f.Call] = openCall{s: s, kind: kind, name: f.Call.Name}
	}
}

// answer settles oc with the answer in f, unless f is a hop of a multi
// round-trip chain (input_required): the chain's last answer settles it.
func (c *Collector) answer(oc *openCall, f *session.Frame) {
	call := f.Call
	delete(c.open, call)
	if call.State == session.Parked {
		return
	}
	kind := ""
	switch {
	case f.Msg.Error != nil:
		kind = KindJSONRPCError
	case f.Status >= 400 && f.Msg.Kind != session.Response:
		kind = KindHTTPError
	case oc.kind == 't':
		// The fields the reader decoded (the tool-error rule reads them
		// too); decoding the content blocks would cost a frame's worth.
		if r := f.View().ResultFields(); r != nil && r.IsError {
			kind = KindToolError
		}
	}
	if kind == "" && f.Status >= 400 {
		kind = KindHTTPError
	}
	c.settle(oc, call, kind, Location{File: f.File, Line: f.Line})
}

// EndSession settles the calls of s still open (cancelled or never
// answered) and takes the session's latest complete listings as what its
// server advertised.
func (c *Collector) EndSession(s *session.Session, cat *facts.CatalogueTracker) {
	for call, oc := range c.open {
		if oc.s != s {
			continue
		}
		delete(c.open, call)
		kind := KindUnanswered
		if call.State == session.Cancelled {
			kind = KindCancelled
		}
		c.settle(&oc, call, kind, Location{File: call.File, Line: call.Line})
	}
	delete(c.run, s)
	if c.lastRun == s {
		c.lastRun = nil // a later session may be given its address
	}
	sv := c.server(s.Label)
	if sv == nil {
		c.pastLabelCap++
		return
	}
	sv.sessions++
	if cat != nil && cat.Tools.Complete {
		sv.listed.tools = true
		sv.mergeListing(cat.Tools.Current)
		if c.KeepDefinitions {
			defs := baseline.FromToolSet(cat.Tools.Current, s.Revision)
			sv.defs = &defs
		}
	}
	if cat != nil {
		if cat.Prompts.Complete {
			sv.listed.prompts = true
			for name := range cat.Prompts.Current {
				itemOf(sv.prompts, name).advertised = true
			}
		}
		if cat.Resources.Complete {
			sv.listed.resources = true
			for uri := range cat.Resources.Current {
				itemOf(sv.resources, uri).advertised = true
			}
		}
		if cat.Templates.Complete {
			sv.listed.templates = true
			for tpl := range cat.Templates.Current {
				if t := sv.templates[tpl]; t != nil {
					t.advertised = true
				} else if len(sv.templates) < maxTemplates {
					m, _ := uritemplate.Compile(tpl)
					sv.templates[tpl] = &templateItem{item: item{advertised: true}, match: m}
				}
			}
		}
	}
}

// maxDeclared bounds the input properties kept per tool: coverage of
// arguments past it is not followed.
const maxDeclared = 256

// declaredProperties are the names of the schema's top-level properties,
// sorted, at most maxDeclared of them.
func declaredProperties(schema []byte) []string {
	names := eachDeclared(nil, schema)
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return out
}

// eachDeclared appends to names those of the schema's top-level
// properties, sorted and each once, at most maxDeclared of them; a name
// without escapes shares the schema's bytes.
func eachDeclared(names [][]byte, schema []byte) [][]byte {
	props := jsonscan.Member(schema, "properties")
	i := jsonscan.SkipSpace(props, 0)
	if i >= len(props) || props[i] != '{' {
		return names
	}
	start := len(names)
	for i++; len(names)-start < maxDeclared; {
		i = jsonscan.SkipSpace(props, i)
		if i >= len(props) || props[i] == '}' {
			break
		}
		if props[i] == ',' {
			i++
			continue
		}
		end, err := jsonscan.SkipString(props, i)
		if err != nil {
			break
		}
		if tok := props[i:end]; bytes.IndexByte(tok, '\\') < 0 {
			names = append(names, tok[1:len(tok)-1])
		} else if s, ok := jsonscan.String(tok); ok {
			names = append(names, []byte(s))
		}
		i = jsonscan.SkipSpace(props, end)
		if i < len(props) && props[i] == ':' {
			i++
		}
		if i, err = jsonscan.SkipValue(props, i, 0); err != nil {
			break
		}
	}
	own := names[start:]
	slices.SortFunc(own, bytes.Compare)
	return append(names[:start], slices.CompactFunc(own, bytes.Equal)...)
}

// settle counts one finished (or abandoned) call; kind is "" for a success.
func (c *Collector) settle(oc *openCall, call *session.Call, kind string, at Location) {
	switch oc.kind {
	case 'p', 'r':
		sv := c.server(oc.s.Label) // not nil: the call was opened for it
		m := sv.prompts
		if oc.kind == 'r' {
			m = sv.resources
		}
		it := itemOf(m, oc.name)
		it.calls++
		if kind == "" {
			it.ok++
		}
		return
	}
	t := oc.t
	t.calls++
	if t.lastFile != c.file {
		t.lastFile = c.file
		t.captures++
	}
	if kind == "" {
		t.ok++
	} else {
		if t.errors == nil {
			t.errors = map[string]int64{}
		}
		t.errors[kind]++
	}
	if d, ok := call.Duration(); ok && kind != KindUnanswered && kind != KindCancelled {
		times := t.timed()
		times.latency.Add(d)
		if call.Op != nil && call.Op.Requests > 1 {
			t.chains++
			times.server.Add(call.Op.ServerTime)
		} else {
			times.server.Add(d)
		}
	}
	if kind == KindUnanswered || kind == KindCancelled {
		return // no outcome to compare
	}
	c.remember(t, oc, kind, at)
}

// remember keeps where t with oc's arguments succeeded or failed first,
// up to the run's cap on argument records.
func (c *Collector) remember(t *tool, oc *openCall, kind string, at Location) {
	rec, seen := t.args[oc.key]
	if !seen {
		if c.hashes >= c.maxHashes {
			c.capped = true
			return
		}
		if t.args == nil {
			t.args = map[argKey]argRecord{}
		}
		rec = argRecord{ok: -1, fail: -1}
		c.hashes++
	}
	// Keep a success and a failure of different runs when there are any.
	switch {
	case kind == "" && (rec.ok < 0 || (rec.ok == rec.fail && oc.run != rec.fail)):
		rec.ok, rec.okFile, rec.okLine = oc.run, c.file, int32(at.Line)
	case kind != "" && (rec.fail < 0 || (rec.ok == rec.fail && oc.run != rec.ok)):
		rec.fail, rec.failFile, rec.failLine, rec.failKind = oc.run, c.file, int32(at.Line), kindIndex(kind)
		if _, ok := c.failed[oc.run]; !ok {
			c.failed[oc.run] = oc.s.ID
		}
	case seen:
		return // nothing new: no write
	}
	t.args[oc.key] = rec
}

// Summary is what the run did, per server label in label order. It is
// made once, when nothing more is collected: the records it is made from
// are let go of as it goes (a listing of 200k tools held both at once),
// and later calls return the same summary.
func (c *Collector) Summary() *Summary {
	if c.summary != nil {
		return c.summary
	}
	out := &Summary{Servers: []Server{}, Captures: len(c.files), MaxArgumentHashes: c.maxHashes, ArgumentHashes: c.hashes, CapReached: c.capped,
		MaxLabels: c.maxLabels, SessionsPastLabelCap: c.pastLabelCap}
	labels := make([]string, 0, len(c.servers))
	for l := range c.servers {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		out.Servers = append(out.Servers, c.servers[l].summary(c))
		delete(c.servers, l) // summarised: its records need not be held beside the summary
	}
	c.lastServer, c.summary = nil, out
	return out
}

func (sv *server) summary(c *Collector) Server {
	out := Server{Label: sv.label, Sessions: sv.sessions, Definitions: sv.defs, ToolStats: make([]Tool, 0, len(sv.tools)+sv.listedOnly.len()), Flaky: []Flaky{}}
	out.Tools.Listed = sv.listed.tools
	names := make([]string, 0, len(sv.tools))
	for n := range sv.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	next := 0 // of names
	sv.listedOnly.each(func(t listedTool) {
		for ; next < len(names) && names[next] < t.name; next++ {
			out.addTool(c, names[next], sv.tools[names[next]])
			delete(sv.tools, names[next]) // a listing of 200k tools: each record goes as its line is made
		}
		out.addListed(t)
	})
	for _, n := range names[next:] {
		out.addTool(c, n, sv.tools[n])
		delete(sv.tools, n)
	}
	sv.listedOnly = nil
	out.Tools = out.Tools.done()
	slices.SortFunc(out.Flaky, func(a, b Flaky) int {
		return cmp.Or(cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.FailedAt.File, b.FailedAt.File), cmp.Compare(a.FailedAt.Line, b.FailedAt.Line), cmp.Compare(a.ArgsHash, b.ArgsHash))
	})
	slices.SortFunc(out.outcomes, func(a, b Outcome) int { return cmp.Or(cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.Args, b.Args)) })
	out.Prompts = itemsCoverage(sv.prompts, sv.listed.prompts)
	out.Resources = itemsCoverage(sv.resources, sv.listed.resources)
	out.Templates = itemsCoverage(sv.templateUse(), sv.listed.templates)
	return out
}

// addListed adds the line of a tool listed and never called.
func (out *Server) addListed(t listedTool) {
	out.Tools.count(t.name, &item{advertised: true})
	declared := t.declared()
	if declared == nil {
		declared = []string{}
	}
	out.ToolStats = append(out.ToolStats, Tool{
		Name: t.name, Advertised: true, Errors: map[string]int64{}, Latency: (&Latencies{}).Summary(),
		Declared: declared, Passed: []string{}, NeverPassed: declared[:len(declared):len(declared)],
	})
}

// addTool adds the line of a tool with a record.
func (out *Server) addTool(c *Collector, n string, t *tool) {
	out.Tools.count(n, &t.item)
	var times callTimes
	if t.times != nil {
		times = *t.times
	}
	ts := Tool{
		Name: n, Advertised: t.advertised, Calls: t.calls, OK: t.ok, Errors: t.errors,
		Latency: times.latency.Summary(), Captures: t.captures, Chains: t.chains,
		Declared: append([]string{}, t.declared...), Passed: []string{}, NeverPassed: []string{},
	}
	if t.chains > 0 {
		sl := times.server.Summary()
		ts.ServerLatency = &sl
	}
	if ts.Errors == nil {
		ts.Errors = map[string]int64{}
	}
	if t.calls > 0 {
		ts.ErrorRate = float64(t.calls-t.ok) / float64(t.calls)
	}
	for p := range t.passed {
		ts.Passed = append(ts.Passed, p)
	}
	sort.Strings(ts.Passed)
	for _, d := range t.declared {
		if !t.passed[d] {
			ts.NeverPassed = append(ts.NeverPassed, d)
		}
	}
	for key, rec := range t.args {
		o := Outcome{Tool: n, Args: uint64(key), OK: rec.ok >= 0, Failed: rec.fail >= 0, FailKind: kinds[rec.failKind]}
		out.outcomes = append(out.outcomes, o)
		if rec.ok >= 0 && rec.fail >= 0 && rec.ok != rec.fail {
			out.Flaky = append(out.Flaky, Flaky{
				Tool: n, ArgsHash: hexKey(key), FailKind: kinds[rec.failKind],
				OKAt:          Location{File: c.files[rec.okFile], Line: int(rec.okLine)},
				FailedAt:      Location{File: c.files[rec.failFile], Line: int(rec.failLine)},
				FailedSession: c.failed[rec.fail],
			})
		}
	}
	out.ToolStats = append(out.ToolStats, ts)
}

func itemsCoverage(m map[string]*item, listed bool) Coverage {
	cv := Coverage{Listed: listed}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cv.count(n, m[n])
	}
	return cv.done()
}

func hexKey(k argKey) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		b[i] = digits[k&15]
		k >>= 4
	}
	return string(b)
}
