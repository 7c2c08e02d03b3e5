package baseline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
)

var fixedNow = func() time.Time { return time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC) }

func newStore(dir string) *Store {
	s := NewStore(dir)
	s.Now = fixedNow
	return s
}

func origin(session string) Origin { return Origin{File: "cap.jsonl", Session: session, Line: 6} }

func TestFileNameIsAHashOfTheLabel(t *testing.T) {
	t.Parallel()
	// mcpsnoop names its files so; the shared sample is one
	if got := FileName("filesystem-drift"); got != "6e3738f6652e837efee27a316abf29e9.json" {
		t.Errorf("FileName = %s", got)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	for _, label := range []string{"../../etc/passwd", "/etc/passwd", "a\x00b", "..", "c:\\windows\\x", strings.Repeat("x", 5000)} {
		s := newStore(dir)
		l := listing(t, rev, `[{"name":"t"}]`)
		e := s.Resolve(label, &l, &l, origin("s1"))
		if e.NotKept != "" || e.Err != nil {
			t.Fatalf("label %q: %+v", label, e)
		}
		if filepath.Dir(e.Path) != dir || !baselineName.MatchString(filepath.Base(e.Path)) {
			t.Errorf("label %q: file %s is not a hashed name inside %s", label, e.Path, dir)
		}
		b, err := Parse(mustRead(t, e.Path), label, e.Path)
		if err != nil || b.Label != label {
			t.Errorf("label %q: the file does not read back: %v", label, err)
		}
	}
	// nothing was created outside the directory
	var outside []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() && filepath.Dir(p) != dir {
			outside = append(outside, p)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(root, "etc")); err == nil || len(outside) > 0 {
		t.Errorf("files outside the baseline directory: %v", outside)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 6 {
		t.Errorf("%d files, want one per label", len(entries))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestEncodeIsCanonicalAndReadsBack(t *testing.T) {
	t.Parallel()
	l := listing(t, rev, `[{"name":"z","inputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}},"annotations":{"readOnlyHint":true}},{"name":"a","description":"<first>"}]`)
	b := &Baseline{Label: "notes", Definitions: l, Accepted: &Provenance{Reason: "initial", Time: "2026-09-01T12:00:00Z", Capture: "c.jsonl", Session: "s1"}}
	data, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "accepted": {
    "capture": "c.jsonl",
    "reason": "initial",
    "session": "s1",
    "time": "2026-09-01T12:00:00Z"
  },
  "format": "mcpcheck-tool-baseline",
  "revision": "2025-11-25",
  "server": "notes",
  "tools": [
    {
      "description": "<first>",
      "name": "a"
    },
    {
      "annotations": {"readOnlyHint":true},
      "input_schema": {"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"type":"object"},
      "name": "z"
    }
  ],
  "version": 1
}
`
	if string(data) != want {
		t.Errorf("encoded\n%s\nwant\n%s", data, want)
	}
	back, err := Parse(data, "notes", "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if !back.Definitions.Equal(&l) || back.Revision != rev || *back.Accepted != *b.Accepted || back.Format != "mcpcheck" {
		t.Errorf("read back %+v", back)
	}
	again, _ := Encode(back)
	if !bytes.Equal(again, data) {
		t.Errorf("encoding is not stable")
	}
}

func TestParseMcpsnoopFiles(t *testing.T) {
	t.Parallel()
	sample := sharedtest.Path(t, "baselines/mcpsnoop-filesystem-09/6e3738f6652e837efee27a316abf29e9.json")
	b, err := Parse(mustRead(t, sample), "filesystem-drift", sample)
	if err != nil {
		t.Fatal(err)
	}
	if b.Describe() != "mcpsnoop baseline version 2" || len(b.Tools) != 11 || len(b.Missing) != 0 || b.Revision != "" {
		t.Errorf("sample read as %s, %d tools, missing %v", b.Describe(), len(b.Tools), b.Missing)
	}
	if tool, ok := b.Lookup("list_allowed_directories"); !ok || string(tool.InputSchema) != `{"properties":{},"required":[],"type":"object"}` {
		t.Errorf("list_allowed_directories: %+v", tool)
	}

	v1 := `{"version":1,"server":"notes","tools":[{"name":"read","description":"Read","input_schema":{"type":"object"}}]}`
	b, err = Parse([]byte(v1), "notes", "v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Missing; len(got) != 4 || got[0] != FieldTitle || got[3] != FieldIcons {
		t.Errorf("a version 1 file records everything? missing %v", got)
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, data string
		kind       ErrorKind
		detail     string
	}{
		{"not JSON", `{"version":1,`, Corrupt, "not a JSON baseline"},
		{"truncated", `{"format":"mcpcheck-tool-baseline","version":1,"server":"notes","tools":[{"name":"a"}`, Corrupt, "not a JSON baseline"},
		{"two documents", `{"version":2,"server":"notes","tools":[]} {}`, Corrupt, "something follows"},
		{"no version", `{"server":"notes","tools":[]}`, Corrupt, "version is missing"},
		{"string version", `{"version":"2","server":"notes","tools":[]}`, Corrupt, "version is missing or not an integer"},
		{"no server", `{"version":2,"tools":[]}`, Corrupt, "server is missing"},
		{"no tools", `{"version":2,"server":"notes"}`, Corrupt, "tools is missing"},
		{"tools not a list", `{"version":2,"server":"notes","tools":{}}`, Corrupt, "member tools is not"},
		{"nameless tool", `{"version":2,"server":"notes","tools":[{"description":"x"}]}`, Corrupt, "tool 1 has no name"},
		{"tool twice", `{"version":2,"server":"notes","tools":[{"name":"a"},{"name":"a"}]}`, Corrupt, `tool "a" is listed twice`},
		{"other server", `{"version":2,"server":"wiki","tools":[]}`, OtherServer, `is the baseline of server "wiki", not "notes"`},
		{"mcpsnoop from the future", `{"version":3,"server":"notes","tools":[]}`, UnknownVersion, "mcpsnoop baseline of version 3"},
		{"mcpcheck from the future", `{"format":"mcpcheck-tool-baseline","version":2,"server":"notes","tools":[]}`, UnknownVersion, "mcpcheck baseline of version 2"},
		{"unknown format", `{"format":"other","version":1,"server":"notes","tools":[]}`, Corrupt, `unknown format "other"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(c.data), "notes", "f.json")
			var be *Error
			if !errors.As(err, &be) || be.Kind != c.kind || !strings.Contains(be.Detail, c.detail) {
				t.Errorf("error %v, want %s containing %q", err, c.kind, c.detail)
			}
		})
	}
}

func TestResolveRecordsOnceAndLaterSessionsCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStore(dir)
	first := listing(t, rev, `[{"name":"a"}]`)
	later := listing(t, rev, `[{"name":"a"},{"name":"b"}]`)
	e := s.Resolve("notes", &first, &later, origin("s1"))
	if e.RecordedBy == nil || *e.RecordedBy != origin("s1") || e.NotKept != "" || e.Baseline == nil {
		t.Fatalf("first session: %+v", e)
	}
	if again := s.Resolve("notes", &first, &later, origin("s1")); *again.RecordedBy != origin("s1") {
		t.Errorf("resolving twice changed the entry: %+v", again)
	}
	e2 := s.Resolve("notes", &later, &later, origin("s2"))
	if e2.RecordedBy == nil || e2.RecordedBy.Session != "s1" || !e2.Baseline.Definitions.Equal(&first) {
		t.Errorf("a later session does not compare with the first: %+v", e2)
	}
	b, err := Parse(mustRead(t, e.Path), "notes", e.Path)
	if err != nil || b.Recorded == nil || b.Recorded.Session != "s1" || b.Recorded.Time != "2026-09-01T12:00:00Z" || !b.Definitions.Equal(&first) {
		t.Errorf("the recorded file: %+v, %v", b, err)
	}
	// the next run finds it on disk: not recorded by anyone in that run
	e3 := newStore(dir).Resolve("notes", &later, &later, origin("s9"))
	if e3.RecordedBy != nil || e3.Baseline == nil || !e3.Baseline.Definitions.Equal(&first) {
		t.Errorf("next run: %+v", e3)
	}
}

func TestResolveTwoWritersOfOneNewLabel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := listing(t, rev, `[{"name":"a"}]`)
	b := listing(t, rev, `[{"name":"b"}]`)
	var wg sync.WaitGroup
	entries := make([]Entry, 2)
	for i, l := range []*Definitions{&a, &b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entries[i] = newStore(dir).Resolve("notes", l, l, origin([]string{"s1", "s2"}[i]))
		}()
	}
	wg.Wait()
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("files %v, want the one baseline", files)
	}
	onDisk, err := Parse(mustRead(t, filepath.Join(dir, files[0].Name())), "notes", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if e.Baseline == nil || !e.Baseline.Definitions.Equal(&onDisk.Definitions) {
			t.Errorf("writer %d compares with %+v, not the file on disk", i+1, e.Baseline)
		}
	}
}

func TestStoresThatDoNotWrite(t *testing.T) {
	t.Parallel()
	l := listing(t, rev, `[{"name":"a"}]`)

	dir := t.TempDir()
	ro := NewReadOnly(dir)
	if e := ro.Resolve("notes", &l, &l, origin("s1")); e.Baseline != nil || e.NotKept == "" {
		t.Errorf("read-only store recorded: %+v", e)
	}
	if e := NewStore("").Resolve("notes", &l, &l, origin("s1")); e.Baseline == nil || !strings.Contains(e.NotKept, "no baseline directory") {
		t.Errorf("store without a directory: %+v", e)
	}

	// a directory holding mcpsnoop's files is mcpsnoop's
	snoop := t.TempDir()
	os.WriteFile(filepath.Join(snoop, FileName("wiki")), []byte(`{"version":2,"server":"wiki","tools":[]}`), 0o644)
	s := newStore(snoop)
	e := s.Resolve("notes", &l, &l, origin("s1"))
	if !strings.Contains(e.NotKept, "mcpsnoop tool-baselines directory") || e.Baseline == nil {
		t.Errorf("mcpsnoop directory: %+v", e)
	}
	if _, err := s.Accept("notes", "because"); err == nil || !strings.Contains(err.Error(), "never writes there") {
		t.Errorf("accept into an mcpsnoop directory: %v", err)
	}
	if _, err := s.Reset("wiki"); err == nil {
		t.Errorf("reset in an mcpsnoop directory succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("read-only store wrote %v", entries)
	}
	if entries, _ := os.ReadDir(snoop); len(entries) != 1 {
		t.Errorf("mcpcheck wrote into the mcpsnoop directory: %v", entries)
	}
}

func TestUnusableFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := listing(t, rev, `[{"name":"a"}]`)
	os.Mkdir(filepath.Join(dir, FileName("dir")), 0o755)
	os.WriteFile(filepath.Join(dir, FileName("torn")), []byte(`{"format":"mcpcheck-tool-baseline","version":1,"server":"torn","tools":[{"na`), 0o644)
	for label, kind := range map[string]ErrorKind{"dir": Unreadable, "torn": Corrupt} {
		e := newStore(dir).Resolve(label, &l, &l, origin("s1"))
		if e.Err == nil || e.Err.Kind != kind || e.Baseline != nil {
			t.Errorf("%s: %+v, want %s", label, e, kind)
		}
	}
	// a corrupt baseline is never replaced by check
	if got := string(mustRead(t, filepath.Join(dir, FileName("torn")))); !strings.HasSuffix(got, `[{"na`) {
		t.Errorf("the corrupt file was rewritten: %s", got)
	}
}

func TestAcceptAndReset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := listing(t, "2024-11-05", `[{"name":"a","annotations":{"readOnlyHint":true}}]`)
	cur := listing(t, rev, `[{"name":"a","annotations":{"readOnlyHint":false}},{"name":"b"}]`)
	s := newStore(dir)
	s.Resolve("notes", &old, &old, origin("s0"))

	s = NewReadOnly(dir)
	s.Now = fixedNow
	s.Resolve("notes", &cur, &cur, Origin{File: "new.jsonl", Session: "s2", Line: 9})
	a, err := s.Accept("notes", "reviewed in PR 12")
	if err != nil {
		t.Fatal(err)
	}
	if a.Tools != 2 || a.Previous == nil || len(a.Changes) != 2 || a.Changes[0].Tier != TierBreaking {
		t.Errorf("accepted %+v", a)
	}
	b, err := Parse(mustRead(t, a.Path), "notes", a.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := Provenance{Reason: "reviewed in PR 12", Time: "2026-09-01T12:00:00Z", Capture: "new.jsonl", Session: "s2"}
	if b.Accepted == nil || *b.Accepted != want || b.Recorded != nil || !b.Definitions.Equal(&cur) {
		t.Errorf("accepted file %+v", b)
	}
	if _, err := s.Accept("wiki", "x"); err == nil {
		t.Errorf("accepting a label never seen succeeded")
	}
	removed, err := s.Reset("notes")
	if !removed || err != nil {
		t.Errorf("reset: %v %v", removed, err)
	}
	if removed, err := s.Reset("notes"); removed || err != nil {
		t.Errorf("second reset: %v %v", removed, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind %v", entries)
	}
}

// Done when: a baseline directory that is a symbolic link (a checked-in
// .mcpcheck/baselines pointing at /etc) is read through, never written
// through: recording, accepting and resetting refuse, naming the link.
func TestLinkedDirectoryIsNeverWrittenThrough(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "baselines")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here")
	}
	l := listing(t, rev, `[{"name":"a"}]`)
	for _, dir := range []string{link, link + "/"} {
		e := newStore(dir).Resolve("notes", &l, &l, origin("s1"))
		if !strings.Contains(e.NotKept, "is a symbolic link (to "+real+")") {
			t.Errorf("%s: recorded: %+v", dir, e)
		}
		s := NewReadOnly(dir)
		s.Resolve("notes", &l, &l, origin("s1"))
		if _, err := s.Accept("notes", "x"); err == nil || !strings.Contains(err.Error(), "the baseline directory "+dir+" is a symbolic link") {
			t.Errorf("%s: accept: %v", dir, err)
		}
		if _, err := s.Reset("notes"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: reset: %v", dir, err)
		}
	}
	if entries, _ := os.ReadDir(real); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
	// reading through it is fine
	if err := newStore(real).write(&Baseline{Label: "notes", Definitions: l}, true); err != nil {
		t.Fatal(err)
	}
	if e := newStore(link).Resolve("notes", &l, &l, origin("s2")); e.Baseline == nil || e.Err != nil || e.RecordedBy != nil {
		t.Errorf("read through the link: %+v", e)
	}
}

// Done when: accept reads the file again under the update lock, so the
// baseline it reports replacing is the one on disk at that moment — an
// accept by another process since this run read the directory included.
func TestAcceptReplacesWhatIsOnDiskNow(t *testing.T) {
	dir := t.TempDir()
	first := listing(t, rev, `[{"name":"a"}]`)
	other := listing(t, rev, `[{"name":"a"},{"name":"b"}]`)
	cur := listing(t, rev, `[{"name":"a"},{"name":"b"},{"name":"c"}]`)
	newStore(dir).Resolve("notes", &first, &first, origin("s0"))

	s := NewReadOnly(dir)
	s.Now = fixedNow
	s.Resolve("notes", &cur, &cur, origin("s2")) // reads the first baseline
	concurrent := NewReadOnly(dir)
	concurrent.Now = fixedNow
	concurrent.Resolve("notes", &other, &other, origin("s1"))
	if _, err := concurrent.Accept("notes", "the other run"); err != nil {
		t.Fatal(err)
	}
	a, err := s.Accept("notes", "this run")
	if err != nil {
		t.Fatal(err)
	}
	if a.Previous == nil || a.Previous.Accepted == nil || a.Previous.Accepted.Reason != "the other run" || len(a.Changes) != 1 {
		t.Errorf("replaced %+v with changes %+v, want the other run's accept", a.Previous, a.Changes)
	}
}
