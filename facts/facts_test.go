package facts

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
)

// feed reads a capture through correlation into the facts of keys, and
// returns the set of the first session after its last frame. Reading with
// the production reader means the facts see frames as rules do, buffers
// reused included.
func feed(t *testing.T, capture string, keys ...*Key) *Set {
	t.Helper()
	h := &setHandler{keys: Closure(keys)}
	if err := readers.Read("test.jsonl", strings.NewReader(capture), h, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if h.set == nil {
		t.Fatal("no session")
	}
	return h.set
}

type setHandler struct {
	keys []*Key
	set  *Set
}

func (h *setHandler) Frame(s *session.Session, f *session.Frame) {
	if h.set == nil {
		h.set = NewSet(s, h.keys)
	}
	if k, v := h.set.Frame(f); k != nil {
		panic(v)
	}
}
func (h *setHandler) Damage(*session.Session, session.Damage) {}
func (h *setHandler) End(*session.Session)                    {}

// env wraps a JSON-RPC message in an mcpsnoop envelope.
func env(seq int, dir, raw string) string {
	return `{"session_id":"s1","server_label":"srv","seq":` + strconv.Itoa(seq) + `,"ts":"2026-09-01T10:00:00Z","direction":"` + dir + `","transport":"stdio","raw":` + raw + "}\n"
}

func TestCatalogueAccumulatesPagesAndGoesStale(t *testing.T) {
	t.Parallel()
	c := env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`) +
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}`) +
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2"}}`) +
		env(4, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b","description":"bee","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}]}}`) +
		env(5, "c2s", `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`) +
		env(6, "s2c", `{"jsonrpc":"2.0","id":3,"result":{"prompts":[{"name":"greet"}]}}`)
	set := feed(t, c, Catalogue.Key())
	cat := set.Get(Catalogue.Key()).(*CatalogueTracker)
	tools := cat.Tools
	if !tools.Complete || tools.Stale || tools.Generation != 1 || tools.Pending != 0 || tools.Line != 4 {
		t.Fatalf("tools listing: %+v", tools)
	}
	if tools.Current.Len() != 2 {
		t.Fatalf("tools %d, want 2 (both pages)", tools.Current.Len())
	}
	b, ok := tools.Current.Lookup("b")
	if !ok || b.Description != "bee" || !strings.Contains(string(b.InputSchema), `"x"`) {
		t.Fatalf("tool b: %+v", b)
	}
	if !cat.Prompts.Current["greet"] {
		t.Errorf("prompts: %+v", cat.Prompts)
	}

	stale := feed(t, c+env(7, "s2c", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`), Catalogue.Key())
	if st := stale.Get(Catalogue.Key()).(*CatalogueTracker).Tools; !st.Stale || !st.Complete {
		t.Errorf("after list_changed: stale %v complete %v", st.Stale, st.Complete)
	}
}

func TestCatalogueIgnoresAContinuationWithoutItsFirstPage(t *testing.T) {
	t.Parallel()
	c := env(1, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2"}}`) +
		env(2, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}`)
	tools := feed(t, c, Catalogue.Key()).Get(Catalogue.Key()).(*CatalogueTracker).Tools
	if tools.Complete {
		t.Errorf("a lone last page is not a complete listing: %+v", tools)
	}
}

func TestNegotiationAndPeers(t *testing.T) {
	t.Parallel()
	c := env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"cli","version":"1.2"}}}`) +
		env(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"srv","version":"9"}}}`) +
		env(3, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	set := feed(t, c, Negotiation.Key(), Peers.Key())
	n := set.Get(Negotiation.Key()).(*NegotiationTracker)
	if n.Offered != "2025-11-25" || n.Negotiated != "2025-06-18" || !n.Initialized || n.Initializes != 1 || n.InitializeLine != 1 || n.Modern() {
		t.Errorf("negotiation: %+v", n)
	}
	p := set.Get(Peers.Key()).(*PeersTracker)
	if p.Client.Name != "cli" || p.Server.Version != "9" {
		t.Errorf("peers: %+v", p)
	}
	if !p.ServerCaps.Has("tools") || !p.ServerCaps.Flag("tools", "listChanged") || !p.ServerCaps.Has("logging") || p.ServerCaps.Has("prompts") {
		t.Errorf("server capabilities %s", p.ServerCaps.Raw)
	}
	if !p.ClientCaps.Flag("roots", "listChanged") || p.ClientCaps.Has("sampling") {
		t.Errorf("client capabilities %s", p.ClientCaps.Raw)
	}
}

func TestModernSessionDeclaresPerRequest(t *testing.T) {
	t.Parallel()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	c := env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`) +
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"serverInfo":{"name":"m","version":"1"}}}`) +
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`)
	set := feed(t, c, Negotiation.Key(), Peers.Key())
	n := set.Get(Negotiation.Key()).(*NegotiationTracker)
	if !n.Modern() || !n.ProbeSent || !n.Discovered || n.Declared != "2026-07-28" || len(n.Supported) != 1 {
		t.Errorf("negotiation: %+v", n)
	}
	p := set.Get(Peers.Key()).(*PeersTracker)
	if !p.ServerCaps.Extension("io.modelcontextprotocol/tasks") || !p.ClientCaps.Has("elicitation") || p.Server.Name != "m" {
		t.Errorf("peers: %+v caps %s / %s", p, p.ServerCaps.Raw, p.ClientCaps.Raw)
	}
}

func TestOperationsKeepWhatWasIssued(t *testing.T) {
	t.Parallel()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	c := env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book",`+meta+`}}`) +
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"st-1","inputRequests":{"confirm":{"method":"elicitation/create","params":{}}}}}`) +
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book","requestState":"st-1","inputResponses":{"confirm":{}},`+meta+`}}`)
	h := &opsHandler{}
	if err := readers.Read("t.jsonl", strings.NewReader(c), h, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if h.issued.RequestState != "st-1" || !h.issued.HasRequestState || len(h.issued.InputRequests) != 1 || h.issued.Line != 2 {
		t.Errorf("issued at the retry: %+v", h.issued)
	}
}

// opsHandler looks the retry's operation up as a rule would, at the retry.
type opsHandler struct {
	set    *Set
	issued Issued
}

func (h *opsHandler) Frame(s *session.Session, f *session.Frame) {
	if h.set == nil {
		h.set = NewSet(s, Closure([]*Key{Operations.Key()}))
	}
	h.set.Frame(f)
	if f.Msg.Kind == session.Request && f.Call != nil && f.Call.Op != nil {
		h.issued, _ = h.set.Get(Operations.Key()).(*OperationsTracker).Issued(f.Call.Op)
	}
}
func (h *opsHandler) Damage(*session.Session, session.Damage) {}
func (h *opsHandler) End(*session.Session)                    {}

func TestATrackerThatPanicsIsDroppedAndNamed(t *testing.T) {
	t.Parallel()
	set := &Set{byIndex: make([]Tracker, len(registry))}
	bad := panicky{}
	after := &counting{}
	set.byIndex[Tasks.Key().index] = bad
	set.byIndex[Catalogue.Key().index] = after
	set.order = []Tracker{bad, after}
	k, v := set.Frame(&session.Frame{})
	if k != Tasks.Key() || v != "boom" || set.Get(Tasks.Key()) != nil || len(set.order) != 1 {
		t.Errorf("got %v %v, set %+v", k, v, set)
	}
	if after.frames != 1 {
		t.Errorf("the tracker after the one that panicked saw %d frames, want 1", after.frames)
	}
}

type panicky struct{}

type counting struct{ frames int }

func (c *counting) Frame(*session.Frame) { c.frames++ }

func (panicky) Frame(*session.Frame) { panic("boom") }

func TestUndeclaredDependencyFails(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "without requiring it") {
			t.Errorf("recovered %v", r)
		}
	}()
	depSource{set: &Set{}, k: Tasks.Key()}.Fact(Catalogue.Key())
}
