package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/atomicfile"
	"github.com/mcpcheck/mcpcheck/internal/safefile"
)

// MaxRecordings is how many baseline files one run records: a capture of
// 20,000 labels must not write 20,000 files. Past it a label's first
// listing is its baseline for the rest of the run only, and its finding
// says so.
const MaxRecordings = 1000

// MaxLabels is how many labels' baselines a run keeps in memory for its
// later sessions (as usage.MaxLabels bounds what a run follows): a label
// past it is compared with its file when it has one, a listing recorded
// for it is the baseline of its own session only, and it cannot be
// accepted (PastCap).
const MaxLabels = 10_000

// maxFileSize bounds what is read of one baseline file: a tool listing is
// kilobytes, a schema-heavy one a few megabytes.
const maxFileSize = safefile.MaxBaseline

// Store is the baselines one run works with: a directory's files, each
// read at most once, and what the run recorded, so a later session of a
// label compares against what an earlier one recorded. Safe for
// concurrent use.
type Store struct {
	dir      string
	readOnly bool // never record (the baseline command's show and accept)
	quiet    bool // the library default: recording is not news
	// Now is the clock provenance times come from.
	Now func() time.Time

	mu            sync.Mutex
	entries       map[string]*entry
	order         []string // labels in the order first resolved
	foreign       string   // why the directory is not mcpcheck's to write
	recordings    int      // files this run recorded
	maxRecordings int      // MaxRecordings; tests set fewer
	maxLabels     int      // MaxLabels; tests set fewer
	pastCap       int      // sessions whose label came past maxLabels others
	foreignWasSet bool
}

// NewStore is the store of check: baselines in dir, the first complete
// listing of a label without one recorded there. With dir "" nothing is
// kept past the run, and the findings say so.
func NewStore(dir string) *Store {
	return &Store{dir: dir, Now: time.Now, entries: map[string]*entry{}, maxRecordings: MaxRecordings, maxLabels: MaxLabels}
}

// NewReadOnly reads dir and records nothing.
func NewReadOnly(dir string) *Store {
	s := NewStore(dir)
	s.readOnly = true
	return s
}

// NewMemory keeps baselines for one run only and does not report that it
// recorded them: what a check without a baseline directory compares is
// one session of a label with the sessions of that label before it.
func NewMemory() *Store {
	s := NewStore("")
	s.quiet = true
	return s
}

// Dir is the baseline directory, "" when there is none.
func (s *Store) Dir() string { return s.dir }

// Quiet reports a store whose recording is not reported.
func (s *Store) Quiet() bool { return s.quiet }

// ReadOnly reports a store that never records.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Path is the file of label's baseline ("" without a directory).
func (s *Store) Path(label string) string {
	if s.dir == "" {
		return ""
	}
	return filepath.Join(s.dir, FileName(label))
}

// Origin is the session a listing came from.
type Origin struct {
	File    string
	Session string
	Line    int // where the listing arrived
}

// Entry is what a session learns of its label's baseline.
type Entry struct {
	Label string
	Path  string // the label's file; "" without a directory
	// Baseline is what to compare with; nil when there is none and none
	// could be recorded, or when the file cannot be used (Err).
	Baseline *Baseline
	Err      *Error
	// RecordedBy is the session whose listing this run recorded as the
	// baseline (nil: the baseline existed before the run).
	RecordedBy *Origin
	// NotKept says why a baseline recorded in this run is not on disk,
	// or, in a store that records nothing, why there is none.
	NotKept string
}

type entry struct {
	Entry
	latest   *Definitions // the last listing seen of the label, for Accept
	latestBy Origin
}

// Resolve returns label's baseline for a session whose first complete
// listing is first and last is latest. When the label has no baseline
// yet, first becomes it: written to the directory (never replacing a file
// another process wrote meanwhile: then that file is the baseline) or,
// without one, kept for the rest of the run. Calling it again for the same
// session changes nothing.
func (s *Store) Resolve(label string, first, latest *Definitions, origin Origin) Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[label]
	kept := true
	if e == nil {
		e = &entry{Entry: s.load(label)}
		if kept = len(s.entries) < s.maxLabels; kept {
			s.entries[label] = e
			s.order = append(s.order, label)
		} else {
			s.pastCap++
		}
	}
	e.latest, e.latestBy = latest, origin
	if e.Baseline != nil || e.Err != nil {
		return e.Entry
	}
	if s.readOnly {
		e.NotKept = "nothing is recorded while showing drift"
		return e.Entry
	}
	b := &Baseline{
		Label: label, Format: "mcpcheck", Version: Version, Definitions: *first,
		Recorded: &Provenance{Time: s.now(), Capture: origin.File, Session: origin.Session},
	}
	e.Baseline, e.RecordedBy = b, &origin
	switch {
	case s.dir == "":
		e.NotKept = "there is no baseline directory (pass --baseline DIR)"
	case s.foreignReason() != "":
		e.NotKept = s.foreignReason()
	case s.recordings >= s.maxRecordings && !kept:
		e.NotKept = fmt.Sprintf("this run already recorded %d baselines, the most one run records, and keeps those of %d servers, the most it keeps: no later session is compared with it (run again to record more, or use mcpcheck baseline --accept)", s.maxRecordings, s.maxLabels)
	case s.recordings >= s.maxRecordings:
		e.NotKept = fmt.Sprintf("this run already recorded %d baselines, the most one run records (run again to record more, or use mcpcheck baseline --accept)", s.maxRecordings)
	default:
		err := s.write(b, true)
		if err == nil {
			s.recordings++
		}
		switch {
		case errors.Is(err, fs.ErrExist):
			// Another process recorded this label first: its file is the
			// baseline, complete, since it was linked into place whole.
			other := s.load(label)
			e.Baseline, e.Err = other.Baseline, other.Err
		case err != nil:
			e.NotKept = "it could not be written: " + err.Error()
		}
	}
	return e.Entry
}

// PastCap counts the sessions resolved after MaxLabels labels were kept
// whose label was not one of them.
func (s *Store) PastCap() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pastCap
}

// Labels lists the labels resolved in this run, in first-seen order.
func (s *Store) Labels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

// Accepted is what Accept wrote.
type Accepted struct {
	Label    string
	Path     string
	Tools    int
	From     Origin
	Previous *Baseline // the baseline it replaced; nil when there was none (or it was unusable)
	Changes  []ToolChange
}

// Accept makes the last listing this run saw of label its baseline,
// replacing any file there, with the reason, the time and the capture.
func (s *Store) Accept(label, reason string) (Accepted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[label]
	if e == nil || e.latest == nil {
		return Accepted{}, fmt.Errorf("no complete tools/list of server %q was seen", label)
	}
	if s.dir == "" {
		return Accepted{}, errors.New("there is no baseline directory")
	}
	if why := s.foreignReason(); why != "" {
		return Accepted{}, fmt.Errorf("%s; mcpcheck never writes there: pass --baseline with a directory of its own", why)
	}
	b := &Baseline{
		Label: label, Format: "mcpcheck", Version: Version, Definitions: *e.latest,
		Accepted: &Provenance{Reason: reason, Time: s.now(), Capture: e.latestBy.File, Session: e.latestBy.Session},
	}
	b.Missing = nil
	if err := s.notLinked(); err != nil {
		return Accepted{}, err
	}
	// Under the update lock, what the file holds now (another accept may
	// have replaced it since this run read it) is what this one replaces.
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return Accepted{}, err
	}
	unlock, err := atomicfile.Lock(s.Path(label))
	if err != nil {
		return Accepted{}, err
	}
	defer unlock()
	prev := e.Baseline
	if e.RecordedBy == nil {
		prev = s.load(label).Baseline
	}
	if err := s.write(b, false); err != nil {
		return Accepted{}, err
	}
	a := Accepted{Label: label, Path: s.Path(label), Tools: len(b.Tools), From: e.latestBy}
	if prev != nil && e.RecordedBy == nil {
		a.Previous = prev
		a.Changes = Compare(&prev.Definitions, e.latest)
	}
	return a, nil
}

// Reset deletes label's baseline; removed is false when there was none.
func (s *Store) Reset(label string) (removed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return false, errors.New("there is no baseline directory")
	}
	if why := s.foreignReason(); why != "" {
		return false, fmt.Errorf("%s; mcpcheck never writes there", why)
	}
	if err := s.notLinked(); err != nil {
		return false, err
	}
	unlock, err := atomicfile.Lock(s.Path(label))
	if errors.Is(err, fs.ErrNotExist) { // no directory: no baseline
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unlock()
	err = os.Remove(s.Path(label))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// SetForeign marks the directory as another tool's: read, never written
// (the mcpsnoop state directory, say).
func (s *Store) SetForeign(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.foreign, s.foreignWasSet = why, true
}

// Foreign says why mcpcheck must not write into the directory, "" when it
// may.
func (s *Store) Foreign() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.foreignReason()
}

// baselineName matches the files of a baseline directory.
var baselineName = regexp.MustCompile(`^[0-9a-f]{32}\.json$`)

// foreignReason decides once whether the directory holds mcpsnoop's
// files: pointed at mcpsnoop's tool-baselines, mcpcheck reads them and
// never writes its own format beside them.
func (s *Store) foreignReason() string {
	if s.foreignWasSet || s.dir == "" {
		return s.foreign
	}
	s.foreignWasSet = true
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return ""
	}
	for _, de := range entries {
		if !de.Type().IsRegular() || !baselineName.MatchString(de.Name()) {
			continue
		}
		data, err := readLimited(filepath.Join(s.dir, de.Name()))
		if err == nil && isMcpsnoopFile(data) {
			s.foreign = s.dir + " is an mcpsnoop tool-baselines directory (" + de.Name() + " is mcpsnoop's)"
			break
		}
	}
	return s.foreign
}

func (s *Store) load(label string) Entry {
	e := Entry{Label: label, Path: s.Path(label)}
	if s.dir == "" {
		return e
	}
	data, err := readLimited(e.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return e
	case err != nil:
		e.Err = &Error{Kind: Unreadable, Path: e.Path, Detail: "cannot be read: " + err.Error()}
		return e
	}
	b, err := Parse(data, label, e.Path)
	if err != nil {
		var be *Error
		if !errors.As(err, &be) {
			be = &Error{Kind: Corrupt, Path: e.Path, Detail: err.Error()}
		}
		e.Err = be
		return e
	}
	e.Baseline = b
	return e
}

// write stores b atomically: create-only for a first-seen recording, so
// two runs recording the same new label leave one of their files whole;
// replacing for an accept.
func (s *Store) write(b *Baseline, createOnly bool) error {
	data, err := Encode(b)
	if err != nil {
		return err
	}
	if err := s.notLinked(); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	if createOnly {
		return atomicfile.WriteNew(s.Path(b.Label), data, 0o644)
	}
	return atomicfile.Write(s.Path(b.Label), data, 0o644)
}

// notLinked refuses to write through a baseline directory that is a
// symbolic link: a checked-in .mcpcheck/baselines pointing at /etc (or at
// another user's directory) must not make a run write there. Reading
// through the link is fine. Only the directory itself is checked; the
// directories above it may be links (/tmp on macOS is one).
func (s *Store) notLinked() error {
	dir := filepath.Clean(s.dir) // "link/" would follow the link
	info, err := os.Lstat(dir)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	dest, err := os.Readlink(dir)
	if err != nil {
		dest = "?"
	}
	return fmt.Errorf("the baseline directory %s is a symbolic link (to %s); mcpcheck reads baselines through a link but writes them only into the directory itself: name the directory it points to, if that is where they belong", s.dir, dest)
}

func (s *Store) now() string { return s.Now().UTC().Format(time.RFC3339) }

// readLimited reads a baseline file: a regular file (a link is followed)
// of at most maxFileSize bytes, opened without blocking, so a named pipe
// or a device in the directory is refused at once. The error of a file
// that is there but not read is what is wrong with it, without the path.
func readLimited(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, maxFileSize)
	var se *safefile.Error
	if errors.As(err, &se) {
		return nil, errors.New(se.Problem)
	}
	return data, err
}
