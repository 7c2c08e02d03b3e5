package readers

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

// Source is one capture to read.
type Source struct {
	Name string // as reports name it: the path given, or session.StdinName
	Open func() (io.ReadCloser, error)
}

// Resolve turns command-line CAPTURE arguments into sources: files,
// directories (their capture files in lexical order), "-" for stdin, bare
// mcpsnoop session ids, and, with no argument, the newest mcpsnoop session.
// getenv reads the environment (os.Getenv in production).
func Resolve(args []string, stdin io.Reader, getenv func(string) string) ([]Source, error) {
	return ResolveFor(args, stdin, getenv, nil)
}

// ResolveFor is Resolve for captures of format f: a directory contributes
// the files f reads (every format's of All when f is nil).
func ResolveFor(args []string, stdin io.Reader, getenv func(string) string, f Format) ([]Source, error) {
	return ResolveNoting(args, stdin, getenv, f, nil)
}

// ResolveNoting is ResolveFor, telling note (when not nil) what it passed
// over that a user would want to know of: a capture named twice, which is
// read once, and entries of a directory that cannot be read (a symbolic
// link loop, a link to nothing).
func ResolveNoting(args []string, stdin io.Reader, getenv func(string) string, f Format, note func(string)) ([]Source, error) {
	return resolve(formats, args, stdin, getenv, f, note)
}

// resolve is ResolveNoting with the formats a directory is expanded for
// when f is nil (All, or more in tests).
func resolve(list []Format, args []string, stdin io.Reader, getenv func(string) string, f Format, note func(string)) ([]Source, error) {
	if note == nil {
		note = func(string) {}
	}
	if len(args) == 0 {
		src, err := newestSession(getenv)
		if err != nil {
			return nil, err
		}
		return []Source{src}, nil
	}
	var out []Source
	usedStdin := false
	seen := map[string]string{} // a file's real path: how it was first named
	add := func(src Source) {
		real := realPath(src.Name)
		if first, dup := seen[real]; dup {
			note(fmt.Sprintf("%s is %s again; it is read once", src.Name, first))
			return
		}
		seen[real] = src.Name
		out = append(out, src)
	}
	for _, arg := range args {
		if arg == "-" {
			if usedStdin {
				return nil, errors.New(`"-" (standard input) given twice`)
			}
			usedStdin = true
			out = append(out, Source{Name: session.StdinName, Open: func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }})
			continue
		}
		info, err := os.Stat(arg)
		switch {
		case err == nil && info.IsDir():
			srcs, err := directory(list, arg, f, note)
			if err != nil {
				return nil, err
			}
			for _, src := range srcs {
				add(src)
			}
		case err == nil:
			add(fileSource(arg))
		case errors.Is(err, fs.ErrNotExist):
			src, ok := sessionByID(arg, getenv)
			if !ok {
				return nil, fmt.Errorf("%s: no such file or directory, and no mcpsnoop session of that id in %s", arg, filepath.Join(StateDir(getenv), "sessions"))
			}
			add(src)
		default:
			return nil, err
		}
	}
	return out, nil
}

func fileSource(path string) Source {
	return Source{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// realPath is path with links resolved, absolute: two names of one file
// have the same real path.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

func directory(list []Format, dir string, f Format, note func(string)) ([]Source, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, err
	}
	if f != nil {
		list = []Format{f}
	}
	patterns := capturePatterns(list) // what the formats read
	var out []Source
	// A directory that is a capture of a directory format (an mcp-rewind
	// cache) is read as one, and so is such a subdirectory; its files are
	// not read one by one.
	src, files, ok := dirCapture(list, dir, entries)
	if ok {
		out = append(out, src)
	}
	claimed := map[string]bool{}
	for _, f := range files {
		claimed[f] = true
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if info, err := os.Stat(path); err == nil && info.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if sub, err := os.ReadDir(path); err == nil {
				if src, _, ok := dirCapture(list, path, sub); ok {
					out = append(out, src)
				}
			}
			continue
		}
		if strings.HasPrefix(e.Name(), ".") || !matchesAny(patterns, e.Name()) || claimed[e.Name()] {
			continue
		}
		// os.Stat follows links; an empty file is a capture being written
		// or a failed recording, as in the state directory: skip it. A link
		// that leads nowhere is said: the capture it named is not checked.
		info, err := os.Stat(path)
		if err != nil {
			note(fmt.Sprintf("%s: %s; skipped", path, unreadableEntry(path, err)))
			continue
		}
		if !info.Mode().IsRegular() || info.Size() == 0 {
			continue
		}
		out = append(out, fileSource(path))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no non-empty capture files in directory (looked for %s)", dir, strings.Join(patterns, ", "))
	}
	return out, nil
}

// StateDir is the mcpsnoop proxy's state directory: $MCPSNOOP_HOME, else
// $XDG_STATE_HOME/mcpsnoop, else ~/.local/state/mcpsnoop.
func StateDir(getenv func(string) string) string {
	if d := getenv("MCPSNOOP_HOME"); d != "" {
		return d
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "mcpsnoop")
	}
	return filepath.Join(getenv("HOME"), ".local", "state", "mcpsnoop")
}

// sessionByID finds <state>/sessions/<id>.jsonl for a bare session id.
func sessionByID(id string, getenv func(string) string) (Source, bool) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return Source{}, false
	}
	path := filepath.Join(StateDir(getenv), "sessions", id+".jsonl")
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return Source{}, false
	}
	return fileSource(path), true
}

// newestSession is the most recently modified non-empty session file.
func newestSession(getenv func(string) string) (Source, error) {
	dir := filepath.Join(StateDir(getenv), "sessions")
	matches, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	type candidate struct {
		path string
		mod  int64
	}
	var cs []candidate
	for _, m := range matches {
		if info, err := os.Stat(m); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
			cs = append(cs, candidate{m, info.ModTime().UnixNano()})
		}
	}
	if len(cs) == 0 {
		return Source{}, fmt.Errorf("no capture given and no mcpsnoop session in %s; pass a capture file, a directory or - for stdin", dir)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].mod != cs[j].mod {
			return cs[i].mod > cs[j].mod
		}
		return cs[i].path > cs[j].path
	})
	return fileSource(cs[0].path), nil
}

// capturePatterns are the file name patterns of formats, then their
// compressed forms.
func capturePatterns(formats []Format) []string {
	var plain []string
	for _, f := range formats {
		for _, p := range f.Patterns() {
			if !slices.Contains(plain, p) {
				plain = append(plain, p)
			}
		}
	}
	out := slices.Clone(plain)
	for _, p := range plain {
		out = append(out, p+".gz")
	}
	return out
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// unreadableEntry says why a directory entry cannot be read.
func unreadableEntry(path string, err error) string {
	link, lerr := os.Lstat(path)
	isLink := lerr == nil && link.Mode()&fs.ModeSymlink != 0
	switch {
	case isLink && errors.Is(err, fs.ErrNotExist):
		target, _ := os.Readlink(path)
		return fmt.Sprintf("a symbolic link to %s, which does not exist", target)
	case isLink && isLoop(err):
		return "a symbolic link loop"
	}
	return err.Error()
}
