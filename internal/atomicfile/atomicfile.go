// Package atomicfile writes a file so that readers, and a process killed
// halfway, see the old content or the new one, never a part of either: the
// content goes to a temporary file in the target's directory (the same file
// system, so the last step is atomic), which is synced and then renamed or
// linked into place.
//
// mcpcheck uses it for every file it writes that others read: reports
// (--output) and tool baselines.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// StaleAfter is how old a temporary file of a target must be for Create
// to remove it as left behind by a killed process: an active writer
// touches its temporary file far more often than that.
var StaleAfter = 10 * time.Minute

// stale are, per directory, the temporary files left there by processes
// that died before Commit or Discard (kill -9, a power cut), by the target
// they were for; each directory is read once per process.
var stale = struct {
	sync.Mutex
	dirs map[string]map[string][]string // dir → target base name → temporary names
}{dirs: map[string]map[string][]string{}}

// tempName is Create's temporary file name: "." + target + "." + the
// digits os.CreateTemp puts for "*" + ".tmp".
var tempName = regexp.MustCompile(`^\.(.+)\.[0-9]+\.tmp$`)

// removeStale removes the temporary files of target base in dir that a
// killed process left: only names of Create's own pattern for the same
// target, only regular files, only those untouched for StaleAfter. What
// cannot be removed stays; the write goes on.
func removeStale(dir, base string) {
	key, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	stale.Lock()
	byTarget, ok := stale.dirs[key]
	if !ok {
		byTarget = map[string][]string{}
		if entries, err := os.ReadDir(dir); err == nil {
			for _, de := range entries {
				if m := tempName.FindStringSubmatch(de.Name()); m != nil && de.Type().IsRegular() {
					byTarget[m[1]] = append(byTarget[m[1]], de.Name())
				}
			}
		}
		stale.dirs[key] = byTarget
	}
	names := byTarget[base]
	delete(byTarget, base)
	stale.Unlock()
	for _, name := range names {
		p := filepath.Join(dir, name)
		// The name must be base's own (a base holding ".123" cannot make
		// another target's file look like base's), and still old.
		if !strings.HasPrefix(name, "."+base+".") {
			continue
		}
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > StaleAfter {
			os.Remove(p)
		}
	}
}

// File is a temporary file that becomes its target on Commit.
type File struct {
	tmp    *os.File
	target string
	closed bool
	err    error // from Close, returned again by Commit
	done   bool  // committed or discarded: the temporary file is gone
}

// Create opens a temporary file beside target with permissions perm
// (exactly perm: the umask does not apply, so a file meant for other CI
// users stays readable). Nothing at target changes until Commit.
func Create(target string, perm fs.FileMode) (*File, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	tmp, err := temporaries.create(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		temporaries.remove(tmp.Name())
		return nil, err
	}
	return &File{tmp: tmp, target: target}, nil
}

// temporaries are the temporary files not committed or discarded yet.
var temporaries = &tempSet{names: map[string]struct{}{}}

type tempSet struct {
	mu     sync.Mutex
	names  map[string]struct{}
	sealed bool // RemoveTemporaries ran: the process is exiting
}

// errExiting is Create's error once RemoveTemporaries has run.
var errExiting = errors.New("not written: the process is exiting")

// create makes a temporary file and registers it under one lock, so a
// RemoveTemporaries racing with it waits for the name: a file on disk is
// never missing from the set it removes.
func (t *tempSet) create(dir, pattern string) (*os.File, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sealed {
		return nil, errExiting
	}
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	t.names[tmp.Name()] = struct{}{}
	return tmp, nil
}

func (t *tempSet) remove(name string) {
	t.mu.Lock()
	delete(t.names, name)
	t.mu.Unlock()
}

// RemoveTemporaries removes every temporary file not committed or
// discarded yet, for a process about to exit on a signal: the targets keep
// their old content and no temporary file is left beside them. The files
// must not be used afterwards, and a Create after it fails.
func RemoveTemporaries() {
	temporaries.mu.Lock()
	defer temporaries.mu.Unlock()
	temporaries.sealed = true
	for name := range temporaries.names {
		os.Remove(name)
		delete(temporaries.names, name)
	}
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Name is the temporary file's name.
func (f *File) Name() string { return f.tmp.Name() }

// Target is the file that Commit replaces.
func (f *File) Target() string { return f.target }

// Close syncs and closes the temporary file: its content is final. It may
// be called before Commit (to learn of a full disk before anything is
// replaced) and more than once.
func (f *File) Close() error {
	if f.closed {
		return f.err
	}
	f.closed = true
	f.err = f.tmp.Sync()
	if err := f.tmp.Close(); f.err == nil {
		f.err = err
	}
	return f.err
}

// BeforeRename, when set, is called by Commit with the complete temporary
// file before it replaces the target: a test that kills a writer there
// knows its kill landed during a write.
var BeforeRename func(tmp, target string)

// Commit closes the temporary file and renames it over the target.
func (f *File) Commit() error {
	if err := f.Close(); err != nil {
		f.Discard()
		return err
	}
	if BeforeRename != nil {
		BeforeRename(f.tmp.Name(), f.target)
	}
	if err := os.Rename(f.tmp.Name(), f.target); err != nil {
		f.Discard()
		return err
	}
	f.done = true
	temporaries.remove(f.tmp.Name())
	syncDir(filepath.Dir(f.target))
	return nil
}

// CommitNew closes the temporary file and makes it the target only if no
// file of that name exists; otherwise it returns an error satisfying
// errors.Is(err, fs.ErrExist) and leaves the existing file alone. Of two
// processes committing the same new target, exactly one wins, and the
// other can read the winner's complete file. (A hard link is atomic and
// fails when the name exists; where the file system has no hard links, the
// file is renamed into place unless the target exists by then.)
func (f *File) CommitNew() error {
	if err := f.Close(); err != nil {
		f.Discard()
		return err
	}
	err := os.Link(f.tmp.Name(), f.target)
	switch {
	case err == nil:
		f.Discard() // the target keeps the content; the temporary name goes
		syncDir(filepath.Dir(f.target))
		return nil
	case errors.Is(err, fs.ErrExist):
		f.Discard()
		return err
	}
	if _, statErr := os.Lstat(f.target); statErr == nil {
		f.Discard()
		return &fs.PathError{Op: "create", Path: f.target, Err: fs.ErrExist}
	}
	return f.Commit()
}

// Discard removes the temporary file unless it was committed; safe to
// defer after Create.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	if !f.closed {
		f.closed = true
		f.tmp.Close()
	}
	os.Remove(f.tmp.Name())
	temporaries.remove(f.tmp.Name())
}

// Write writes data to path atomically, replacing what is there.
func Write(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Discard()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// WriteNew writes data to path atomically if no file of that name exists;
// see CommitNew.
func WriteNew(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Discard()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.CommitNew()
}

// syncDir makes a rename durable; best effort, as not every system can
// sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
