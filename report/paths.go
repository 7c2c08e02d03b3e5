package report

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

// StdinPath is what SARIF calls standard input when --stdin-name was not
// given: code scanning refuses a result without a location (spec §7.3).
const StdinPath = "stdin"

// placer places captures for code scanning and annotations: relative to
// the source root (the repository), with links resolved when their target
// stays inside it. It remembers each file, since one run names few files
// and many findings.
type placer struct {
	root     string // absolute and clean; "" when unknown
	rootReal string // root with its links resolved
	workDir  string // relative capture paths are relative to it
	cache    map[string]place
}

// place is where a capture lies.
type place struct {
	rel string // slash-separated path relative to the source root; "" when outside
	abs string // absolute path, for a file:// URI when outside
}

func newPlacer(o Options) *placer {
	p := &placer{workDir: filepath.Clean(o.WorkDir), cache: map[string]place{}}
	if o.WorkDir == "" {
		p.workDir = ""
	}
	root := o.SourceRoot
	if root == "" {
		root = o.WorkDir
	}
	if root != "" {
		if !filepath.IsAbs(root) && p.workDir != "" {
			root = filepath.Join(p.workDir, root)
		}
		p.root = filepath.Clean(root)
		p.rootReal = p.root
		if real, err := filepath.EvalSymlinks(p.root); err == nil {
			p.rootReal = real
		}
	}
	return p
}

// name is the path a capture goes by in SARIF and annotations: standard
// input has one too.
func placeName(file string) string {
	if file == session.StdinName {
		return StdinPath
	}
	return file
}

// at places file. A link whose target lies inside the source root is
// replaced by its target (what a reader of the repository can open);
// otherwise the link's own path is used.
func (p *placer) at(file string) place {
	if pl, ok := p.cache[file]; ok {
		return pl
	}
	pl := p.compute(placeName(file))
	p.cache[file] = pl
	return pl
}

func (p *placer) compute(file string) place {
	if file == "" {
		return place{} // a finding that names no file
	}
	abs := filepath.Clean(file)
	if !filepath.IsAbs(abs) {
		if p.workDir == "" || !filepath.IsAbs(p.workDir) {
			// Nothing to anchor to: a relative path is the best guess.
			if !leavesDir(abs) {
				return place{rel: filepath.ToSlash(abs)}
			}
			return place{abs: abs}
		}
		abs = filepath.Join(p.workDir, abs)
	}
	if p.root == "" {
		return place{abs: abs}
	}
	// The file itself, links followed.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		if rel, ok := within(p.rootReal, real); ok {
			return place{rel: rel, abs: abs}
		}
	}
	// The link's own path, with the directories above it resolved.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		if rel, ok := within(p.rootReal, filepath.Join(dir, filepath.Base(abs))); ok {
			return place{rel: rel, abs: abs}
		}
	}
	// A path that does not exist (a name given to stdin): by its spelling.
	if rel, ok := within(p.root, abs); ok {
		return place{rel: rel, abs: abs}
	}
	return place{abs: abs}
}

// within is path relative to root, slash-separated, when it lies inside.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || leavesDir(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// leavesDir reports whether a relative path climbs out of its base.
func leavesDir(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relativeURI escapes a relative path; url.URL also guards a first segment
// with a colon (it would read as a scheme) by prefixing "./".
func relativeURI(rel string) string {
	return (&url.URL{Path: rel}).String()
}

// fileURI is the file:// URI of an absolute path; dir adds the trailing
// slash a base URI needs.
func fileURI(abs string, dir bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: C:/x becomes file:///C:/x
	}
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
