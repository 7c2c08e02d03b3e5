package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/internal/atomicfile"
	"github.com/mcpcheck/mcpcheck/internal/safefile"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// defaultSuppressions is the suppressions file check reads from the source
// root when it exists and --suppressions is not given.
const defaultSuppressions = ".mcpcheck-suppressions.json"

// loadSuppressions reads --suppressions FILE, or the default file in root
// (the source root SARIF paths are relative to) when it exists. A file that
// is missing when named, unreadable or invalid is a usage error naming the
// file and the entry. Entries expire against now.
func loadSuppressions(path string, given bool, root string, now time.Time) (*suppress.Suppressions, error) {
	name := path
	if !given {
		path = filepath.Join(root, defaultSuppressions)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		name = displayPath(path)
	} else if strings.TrimSpace(path) == "" {
		return nil, usagef("--suppressions is empty; name a suppressions file")
	}
	set, err := readSuppressions(path, name)
	if err != nil {
		return nil, usagef("--suppressions: %v", err)
	}
	if set == nil {
		return nil, usagef("--suppressions: %s does not exist; create it with 'mcpcheck suppress'", path)
	}
	set.Now = now
	return set, nil
}

// readSuppressions parses the file at path, calling it name; nil when the
// file does not exist. Only a regular file of at most
// safefile.MaxSuppressions bytes is read (a committed link to /dev/zero or
// a named pipe is refused at once, naming what it is).
func readSuppressions(path, name string) (*suppress.Suppressions, error) {
	data, err := safefile.ReadFile(path, safefile.MaxSuppressions)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var se *safefile.Error
	if errors.As(err, &se) {
		return nil, fmt.Errorf("%s: %s", name, se.Problem)
	}
	if err != nil {
		return nil, err
	}
	return suppress.Parse(name, data)
}

// displayPath names a file relative to the working directory when it is
// inside it, as captures given relative are reported.
func displayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

const suppressUsage = `mcpcheck suppress accepts findings by fingerprint: it adds (or updates) one
entry per fingerprint in a suppressions file, which check reads.

Usage:
  mcpcheck suppress FINGERPRINT... --reason TEXT [--expires YYYY-MM-DD] [--file FILE] [--from CAPTURE]...

Fingerprints are shown by --format json and SARIF. With --from, each must name a
finding of those captures, whose rule, label, subject and message fill the entry.

Flags:
`

// suppressOptions are the parsed suppress flags.
type suppressOptions struct {
	reason, expires, file string
	from                  []string
	help                  bool
}

func (c *command) runSuppress(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	var o suppressOptions
	fl := pflag.NewFlagSet("suppress", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.SortFlags = false
	fl.StringVar(&o.reason, "reason", "", "why the findings are accepted (required)")
	fl.StringVar(&o.expires, "expires", "", "the last day the entries hold, YYYY-MM-DD, UTC (default: never expire)")
	fl.StringVar(&o.file, "file", "", "the suppressions file (default "+defaultSuppressions+" in the source root)")
	fl.StringArrayVar(&o.from, "from", nil, "a capture whose findings the fingerprints must name (repeatable)")
	fl.BoolVarP(&o.help, "help", "h", false, "show this help")
	if err := fl.Parse(args); err != nil {
		return exitUsage, flagError("suppress", fl, err)
	}
	if o.help {
		fmt.Fprint(stdout, suppressUsage+fl.FlagUsages())
		return exitPassed, nil
	}
	fps, err := suppressArgs(&o, fl.Args(), c.now())
	if err != nil {
		return exitUsage, err
	}
	path, name := o.file, o.file
	if path == "" {
		wd, _ := os.Getwd()
		root, err := sourceRoot(c.getenv, "", false, wd) // as check finds it
		if err != nil {
			return exitUsage, err
		}
		path = filepath.Join(root, defaultSuppressions)
		name = displayPath(path)
	}
	set, err := readSuppressions(path, name)
	if err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	if set == nil {
		set = &suppress.Suppressions{File: name}
	}
	entries := make([]suppress.Suppression, len(fps))
	for i, fp := range fps {
		entries[i] = suppress.Suppression{Fingerprint: fp, Reason: o.reason, Expires: o.expires}
	}
	if len(o.from) > 0 {
		if err := c.fillFromCaptures(entries, o.from, stdin); err != nil {
			return exitUsage, err
		}
	}
	// Read the file again under the update lock and write it before
	// unlocking, so that a concurrent suppress adding other entries loses
	// none (the read above only checked the file before a long --from).
	unlock, err := atomicfile.Lock(writeTarget(path))
	if err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	defer unlock()
	if set, err = readSuppressions(path, name); err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	if set == nil {
		set = &suppress.Suppressions{File: name}
	}
	added := 0
	for _, e := range entries {
		if set.Put(e) {
			added++
		}
	}
	if err := writeFileAtomic(path, set.Marshal()); err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	fmt.Fprintf(stdout, "%s: %d added, %d updated, %d in all\n", name, added, len(entries)-added, len(set.Entries))
	return exitPassed, nil
}

// suppressArgs validates the reason, the expiry and the fingerprints, and
// returns the fingerprints normalised, each once, in order; an expiry
// already past now is refused.
func suppressArgs(o *suppressOptions, args []string, now time.Time) ([]string, error) {
	if len(args) == 0 {
		return nil, usagef("suppress needs at least one FINGERPRINT (--format json and SARIF show them)")
	}
	if strings.TrimSpace(o.reason) == "" {
		return nil, usagef("suppress: --reason is required: say why the findings are accepted")
	}
	if o.expires != "" {
		day, err := suppress.ParseExpiry(o.expires)
		if err != nil {
			return nil, usagef("suppress: --%v", err)
		}
		if (&suppress.Suppression{Expires: o.expires}).Expired(now) {
			return nil, usagef("suppress: --expires %s is already past (entries expire at the end of their day, UTC)", day.Format(time.DateOnly))
		}
	}
	var fps []string
	for _, a := range args {
		fp := strings.ToLower(strings.TrimSpace(a))
		if !result.ValidFingerprint(fp) {
			return nil, usagef("suppress: %q is not a fingerprint (32 hexadecimal digits, as --format json and SARIF show them)", a)
		}
		if !slices.Contains(fps, fp) {
			fps = append(fps, fp)
		}
	}
	return fps, nil
}

// fillFromCaptures checks the captures and fills each entry from the
// finding its fingerprint names; a fingerprint that names none is an error.
func (c *command) fillFromCaptures(entries []suppress.Suppression, captures []string, stdin io.Reader) error {
	sources, err := readers.Resolve(captures, stdin, c.getenv)
	if err != nil {
		return err
	}
	rules := c.catalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		return err
	}
	res, err := engine.Run(sources, engine.Config{Rules: rules, Catalogue: rules, Gate: gate, Reading: c.reading, Limits: c.limits})
	if err != nil {
		return err
	}
	defer res.Close()
	found := map[string]*result.Finding{}
	for i := range entries {
		found[entries[i].Fingerprint] = nil // only these are kept
	}
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			if g, wanted := found[f.Fingerprint]; wanted && g == nil {
				found[f.Fingerprint] = f
			}
		}
	}
	for i := range entries {
		e := &entries[i]
		f := found[e.Fingerprint]
		if f == nil {
			return usagef("suppress: fingerprint %s names no finding of %s; 'mcpcheck --format json' shows their fingerprints",
				e.Fingerprint, strings.Join(captures, ", "))
		}
		e.Rule, e.Label, e.Subject, e.Message = f.Rule, f.Label, f.Subject, f.Message
	}
	return nil
}

// writeTarget is the file a write to path replaces: path with links
// resolved, including a link to a file not yet written.
func writeTarget(path string) string {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved
	}
	if dest, err := os.Readlink(path); err == nil { // a link to a file not yet written
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		return dest
	}
	return path
}

// writeFileAtomic replaces path with data through a temporary file beside
// it, renamed into place, so that a reader (or a crash) never sees half a
// file. A link is followed, so the file it points to is replaced and the
// link stays; the file keeps its mode (a new one is 0644).
func writeFileAtomic(path string, data []byte) error {
	target := writeTarget(path)
	mode := os.FileMode(0o644)
	if info, err := os.Stat(target); err == nil {
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		mode = info.Mode().Perm()
	}
	return atomicfile.Write(target, data, mode)
}
