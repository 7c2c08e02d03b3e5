// Package config reads .mcpcheck.yml, the file that holds a team's check
// settings (spec §1.3): where it is found, what it may say (the Go types
// below, from which the JSON Schema is generated), and what is wrong with it,
// located at FILE:LINE:COL.
//
// Adding a key is adding a field: its yaml tag names it, its doc tag
// documents it (schema, docs/config.md), and the CLI maps it to the flag
// of the same name.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Names are the file names discovered, in order of preference.
var Names = []string{".mcpcheck.yml", ".mcpcheck.yaml"}

// Version is the only version of the file this mcpcheck reads.
const Version = 1

// File is a configuration file: the run's settings, the captures checked
// when none is named, rule options and per-server settings.
type File struct {
	Version  int      `json:"version" doc:"The file's format version; must be 1."`
	Captures []string `json:"captures" doc:"Capture paths and globs (relative to this file) checked when no CAPTURE is given on the command line."`

	Gate
	Assertions
	Run

	Rules   map[string]map[string]json.RawMessage `json:"rules" doc:"Rule options: RULE-ID: {OPTION: VALUE}. Only options a rule declares; see mcpcheck explain RULE."`
	Servers map[string]Server                     `json:"servers" doc:"Per-server settings, keyed by server label or a glob of labels (path.Match syntax: *, ?, [a-z]). Every matching entry applies, in the order of their keys."`

	// Path is the file the settings were read from (as found or named).
	Path string `json:"-"`
	// Dir is the directory relative paths in the file start from.
	Dir string `json:"-"`
	// Set holds the top-level keys the file gives, so that a flag given on
	// the command line can override exactly those.
	Set map[string]bool `json:"-"`
}

// Gate is what fails a check, at the top level or for one server.
type Gate struct {
	FailOn  List `json:"fail-on" doc:"Signals and rule ids that fail the gate (as --fail-on); none or all. A list, or one comma-separated string."`
	Disable List `json:"disable" doc:"Rules turned off (as --disable): their findings are neither reported nor counted."`
}

// Assertions are the expectations of spec §5, at the top level or for one
// server.
type Assertions struct {
	ExpectTools       []string `json:"expect-tools" doc:"Fail a session in which no tools/call of each of these tools exists (as --expect-tool)."`
	ForbidTools       []string `json:"forbid-tools" doc:"Fail a session in which a tools/call of one of these tools exists (as --forbid-tool)."`
	MaxDuration       Budget   `json:"max-duration" doc:"Fail when a finished tool call took longer than this Go duration, e.g. 30s (as --max-duration); or a map of tool name to duration, \"*\" for every other tool."`
	MaxServerDuration Duration `json:"max-server-duration" doc:"The same, counting only the server's share of a multi round-trip chain (as --max-server-duration)."`
	MaxRoundTrips     int      `json:"max-round-trips" doc:"Fail when one logical operation used more than N requests, N >= 1 (as --max-round-trips)." min:"1"`
	MinToolCoverage   *float64 `json:"min-tool-coverage" doc:"Fail a server whose successfully called tools are under this percentage (0 to 100) of those it advertised (as --min-tool-coverage)."`
}

// Run is what only the whole run has: inputs, state and outputs.
type Run struct {
	InputFormat    string            `json:"input-format" doc:"Read every capture as this format instead of detecting it (as --input-format)."`
	Baseline       string            `json:"baseline" doc:"The tool-baseline directory (as --baseline), relative to this file. Naming one puts drift in the default gate."`
	RecordBaseline bool              `json:"record-baseline" doc:"Record a baseline for a server that has none, trust on first use (as --record-baseline); the report says what it recorded."`
	Suppressions   string            `json:"suppressions" doc:"The accepted-findings file (as --suppressions), relative to this file."`
	SourceRoot     string            `json:"source-root" doc:"What SARIF and annotation paths are relative to (as --source-root), relative to this file."`
	Category       string            `json:"category" doc:"The code-scanning category (as --category)."`
	Outputs        map[string]string `json:"outputs" doc:"Reports written besides stdout: FORMAT: PATH (as --output FORMAT=PATH), paths relative to this file."`
}

// Server is the settings of the servers whose label matches its key.
type Server struct {
	Gate
	Assertions
}

// List is a list of names, written as a YAML list or as one
// comma-separated string (as the flags take them).
type List []string

// UnmarshalJSON takes either spelling.
func (l *List) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = nil
		for _, e := range strings.Split(one, ",") {
			if e = strings.TrimSpace(e); e != "" {
				*l = append(*l, e)
			}
		}
		return nil
	}
	var many []string
	err := json.Unmarshal(b, &many)
	*l = many
	return err
}

// Budget is max-duration: one duration for every tool call, or one per
// tool name, with "*" for the tools not named.
type Budget struct {
	All   Duration
	Tools map[string]Duration
}

// UnmarshalJSON takes a duration string or a map of tool name to one.
func (b *Budget) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*b = Budget{All: Duration(one)}
		return nil
	}
	var tools map[string]Duration
	if err := json.Unmarshal(data, &tools); err != nil {
		return err
	}
	*b = Budget{All: tools["*"]}
	delete(tools, "*")
	if len(tools) > 0 {
		b.Tools = tools
	}
	return nil
}

// Duration is a Go duration written as a string ("500ms", "2m").
type Duration string

// Error is a problem with a configuration file: where, and what.
type Error struct {
	File      string
	Line, Col int // 0 when the problem has no place in the file
	Msg       string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return e.Msg
}

// Errors are every problem found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Discover returns the configuration file that applies in dir: the first
// of Names in dir or the nearest parent, not above top (the repository's
// top; "" searches up to the file system's root). "" when there is none.
func Discover(dir, top string) (string, error) {
	dir = filepath.Clean(dir)
	if top != "" {
		top = filepath.Clean(top)
	}
	for {
		for _, name := range Names {
			p := filepath.Join(dir, name)
			info, err := os.Stat(p)
			switch {
			case err == nil && info.IsDir():
				return "", fmt.Errorf("%s: is a directory, not a configuration file", p)
			case err == nil:
				return p, nil
			case !errors.Is(err, os.ErrNotExist):
				return "", fmt.Errorf("%s: %w", p, err)
			}
		}
		up := filepath.Dir(dir)
		if dir == top || up == dir {
			return "", nil
		}
		dir = up
	}
}

// maxFileSize bounds what is read of a configuration file; a real one is
// a few kilobytes.
const maxFileSize = 1 << 20

// Load reads and validates the file at path against the vocabulary.
// Every problem is an *Error; several are Errors.
func Load(path string, v *Vocabulary) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: unwrap(err).Error()}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, &Error{File: path, Msg: unwrap(err).Error()}
	}
	if !info.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	data := make([]byte, maxFileSize+1)
	n, _ := readFull(f, data)
	if n > maxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes; a configuration file is a few kilobytes", maxFileSize)}
	}
	cf, err := Parse(path, data[:n], v)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	cf.Dir = filepath.Dir(abs)
	return cf, nil
}

// Resolve makes a path from the file absolute: relative ones start at the
// file's directory.
func (f *File) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) || f.Dir == "" {
		return p
	}
	return filepath.Join(f.Dir, p)
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
