package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"unicode"
)

// sourceRoot is what SARIF and annotation paths are relative to, and where
// the default suppressions file lives (spec §7.3, §5.1): --source-root DIR,
// else $GITHUB_WORKSPACE, else the top of the git work tree holding the
// working directory, else the working directory. The result is absolute.
func sourceRoot(getenv func(string) string, flag string, given bool, wd string) (string, error) {
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		return filepath.Clean(p)
	}
	if given {
		if strings.TrimSpace(flag) == "" {
			return "", usagef("--source-root is empty; name the repository's top directory")
		}
		dir := abs(flag)
		info, err := os.Stat(dir)
		if err != nil {
			return "", usagef("--source-root %s: %v", flag, unwrapPathError(err))
		}
		if !info.IsDir() {
			return "", usagef("--source-root %s: not a directory", flag)
		}
		return dir, nil
	}
	// A workspace that does not exist here (the variable leaked into a
	// local shell) is ignored rather than trusted.
	if ws := getenv("GITHUB_WORKSPACE"); ws != "" {
		if info, err := os.Stat(abs(ws)); err == nil && info.IsDir() {
			return abs(ws), nil
		}
	}
	if top := gitTop(wd); top != "" {
		return top, nil
	}
	return wd, nil
}

// gitTop is the nearest directory at or above dir holding .git (a
// directory, or a file in a linked work tree or submodule), or "". No git
// is run: a capture check must not depend on one being installed.
func gitTop(dir string) string {
	if dir == "" {
		return ""
	}
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// checkCategory validates --category: it becomes part of SARIF's
// automationDetails.id (mcpcheck/CATEGORY/), so surrounding slashes are
// trimmed and white space or control characters refused.
func checkCategory(c string, given bool) (string, error) {
	if !given {
		return "", nil
	}
	trimmed := strings.Trim(c, "/")
	if trimmed == "" {
		return "", usagef("--category %q is empty; name the analysis, e.g. --category notes-server", c)
	}
	if i := strings.IndexFunc(trimmed, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }); i >= 0 {
		return "", usagef("--category %q: white space and control characters are not allowed", c)
	}
	return trimmed, nil
}

// semverPattern is SemVer 2.0.0 (without the leading v Go versions carry).
var semverPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// semanticVersion turns a version into SemVer for SARIF: a module version
// (v1.2.3, or a pseudo-version) loses its v; anything else — a (devel)
// build — becomes 0.0.0-devel, with +REVISION from the build's VCS stamp
// when there is one (and .dirty when the tree had changes).
func semanticVersion(v string, info *debug.BuildInfo) string {
	if s := strings.TrimPrefix(v, "v"); semverPattern.MatchString(s) {
		return s
	}
	var rev string
	dirty := false
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" || !semverPattern.MatchString("0.0.0+"+rev) {
		return "0.0.0-devel"
	}
	if dirty {
		rev += ".dirty"
	}
	return fmt.Sprintf("0.0.0-devel+%s", rev)
}

// buildSemver is semanticVersion of this binary.
func buildSemver() string {
	info, _ := debug.ReadBuildInfo()
	return semanticVersion(mcpcheckVersion(), info)
}
