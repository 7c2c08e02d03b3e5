package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// MaxMember is the largest member of a tool definition a baseline keeps
// as it is; a larger one is kept as its SHA-256, so a change to it is
// still seen, though not what changed.
const MaxMember = 1 << 20

// MaxFile is the largest baseline file mcpcheck writes: what it reads back.
const MaxFile = maxFileSize

// hashOf is how a member too large to keep is stored.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FormatName marks mcpcheck's own baseline files; mcpsnoop's have no
// format member.
const FormatName = "mcpcheck-tool-baseline"

// Version is the version of the file format this mcpcheck writes.
const Version = 1

// FileName is the name of a label's baseline file: the first 16 bytes of
// the label's SHA-256 in hex, as mcpsnoop names its files, so the label
// (user data) never becomes a path.
func FileName(label string) string {
	sum := sha256.Sum256([]byte(label))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// Baseline is one label's trusted tool definitions and where they came from.
type Baseline struct {
	Label string
	// Format is "mcpcheck" or "mcpsnoop"; Version the file's version.
	Format  string
	Version int
	Definitions
	// Recorded is set when check recorded the first listing it saw,
	// Accepted when a person accepted the definitions with a reason.
	Recorded *Provenance
	Accepted *Provenance
}

// Provenance says when and from which capture a baseline was taken.
type Provenance struct {
	Reason  string `json:"reason,omitempty"` // why it was accepted
	Time    string `json:"time"`             // RFC 3339, UTC
	Capture string `json:"capture"`          // the capture file, as given
	Session string `json:"session"`          // the session id in it
}

// Describe names the file format for people: "mcpcheck baseline version
// 1", "mcpsnoop baseline version 2".
func (b *Baseline) Describe() string {
	return fmt.Sprintf("%s baseline version %d", b.Format, b.Version)
}

// ErrorKind is why a baseline file cannot be used.
type ErrorKind string

const (
	Unreadable     ErrorKind = "unreadable"
	Corrupt        ErrorKind = "corrupt"
	OtherServer    ErrorKind = "other-server"
	UnknownVersion ErrorKind = "unknown-version"
)

// Error is a baseline file that cannot be used.
type Error struct {
	Kind   ErrorKind
	Path   string
	Detail string
}

func (e *Error) Error() string { return e.Path + ": " + e.Detail }

// file is the JSON document, both formats: mcpcheck's adds format,
// revision, recorded and accepted to what mcpsnoop writes.
type file struct {
	Format   *string         `json:"format,omitempty"`
	Version  json.RawMessage `json:"version"`
	Server   *string         `json:"server"`
	Revision string          `json:"revision,omitempty"`
	Recorded *Provenance     `json:"recorded,omitempty"`
	Accepted *Provenance     `json:"accepted,omitempty"`
	Tools    []Tool          `json:"tools"`
}

// hashForm is a member stored by hash.
var hashForm = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// mcpsnoopV1Missing are the fields an mcpsnoop version 1 file never
// recorded: comparing them with nothing would call every tool changed.
var mcpsnoopV1Missing = []Field{FieldTitle, FieldOutputSchema, FieldAnnotations, FieldIcons}

// Parse reads a baseline file of either format and checks that it is the
// baseline of label. path is only used in errors.
func Parse(data []byte, label, path string) (*Baseline, error) {
	fail := func(kind ErrorKind, format string, args ...any) error {
		return &Error{Kind: kind, Path: path, Detail: fmt.Sprintf(format, args...)}
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, fail(Corrupt, "is corrupt: member %s is not a %s", typeErr.Field, typeErr.Type)
		}
		return nil, fail(Corrupt, "is corrupt: not a JSON baseline (%v)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(Corrupt, "is corrupt: something follows the JSON document")
	}
	var version int
	if err := json.Unmarshal(f.Version, &version); err != nil || f.Version == nil {
		return nil, fail(Corrupt, "is corrupt: version is missing or not an integer")
	}
	b := &Baseline{Version: version}
	switch {
	case f.Format == nil:
		b.Format = "mcpsnoop"
		if version != 1 && version != 2 {
			return nil, fail(UnknownVersion, "is an mcpsnoop baseline of version %d; this mcpcheck reads versions 1 and 2", version)
		}
		if version == 1 {
			b.Missing = mcpsnoopV1Missing
		}
		if f.Recorded != nil || f.Accepted != nil || f.Revision != "" {
			return nil, fail(Corrupt, "is corrupt: an mcpsnoop baseline with mcpcheck members but no format")
		}
	case *f.Format == FormatName:
		b.Format = "mcpcheck"
		if version != Version {
			return nil, fail(UnknownVersion, "is an mcpcheck baseline of version %d; this mcpcheck reads version %d (upgrade mcpcheck, or re-record the baseline)", version, Version)
		}
	default:
		return nil, fail(Corrupt, "is corrupt: unknown format %q", *f.Format)
	}
	if f.Server == nil {
		return nil, fail(Corrupt, "is corrupt: server is missing")
	}
	if *f.Server != label {
		return nil, fail(OtherServer, "is the baseline of server %q, not %q (a copied or renamed file?)", *f.Server, label)
	}
	if f.Tools == nil {
		return nil, fail(Corrupt, "is corrupt: tools is missing")
	}
	b.Label, b.Revision, b.Recorded, b.Accepted = label, f.Revision, f.Recorded, f.Accepted
	seen := map[string]bool{}
	for i, t := range f.Tools {
		if t.Name == "" {
			return nil, fail(Corrupt, "is corrupt: tool %d has no name", i+1)
		}
		if seen[t.Name] {
			return nil, fail(Corrupt, "is corrupt: tool %q is listed twice", t.Name)
		}
		seen[t.Name] = true
		for f, h := range t.Hashed {
			if !slices.Contains(Fields, f) || !hashForm.MatchString(h) || len(t.member(f)) > 0 {
				return nil, fail(Corrupt, "is corrupt: tool %q has a bad hashed member %q", t.Name, f)
			}
		}
		t.InputSchema = canonicalMember(t.InputSchema)
		t.OutputSchema = canonicalMember(t.OutputSchema)
		t.Annotations = canonicalMember(t.Annotations)
		t.Icons = canonicalMember(t.Icons)
		b.Tools = append(b.Tools, t)
	}
	sortTools(b.Tools)
	return b, nil
}

// Encode writes b in mcpcheck's format: every object's keys sorted, tools
// sorted by name, the document and each tool indented two spaces and each
// member of a tool on one line, so a checked-in baseline reads well in git
// diff, its size follows the definitions' (a deep schema is not indented
// level by level) and the same definitions always give the same bytes. A
// member over MaxMember bytes is stored by its SHA-256 (Tool.Hashed); a
// document over MaxFile bytes, which no run could read back, is an error.
func Encode(b *Baseline) ([]byte, error) {
	tools := append([]Tool{}, b.Tools...)
	sortTools(tools)
	var out bytes.Buffer
	w := func(s string) { out.WriteString(s) }
	member := func(indent, key string, v any, last bool) {
		w(indent + string(encode(key)) + ": ")
		switch v := v.(type) {
		case json.RawMessage:
			out.Write(v)
		default:
			out.Write(encode(v))
		}
		if !last {
			w(",")
		}
		w("\n")
	}
	provenance := func(key string, p *Provenance) {
		w("  " + string(encode(key)) + ": {\n")
		member("    ", "capture", p.Capture, false)
		if p.Reason != "" {
			member("    ", "reason", p.Reason, false)
		}
		member("    ", "session", p.Session, false)
		member("    ", "time", p.Time, true)
		w("  },\n")
	}
	w("{\n")
	if b.Accepted != nil {
		provenance("accepted", b.Accepted)
	}
	member("  ", "format", FormatName, false)
	if b.Recorded != nil {
		provenance("recorded", b.Recorded)
	}
	if b.Revision != "" {
		member("  ", "revision", b.Revision, false)
	}
	member("  ", "server", b.Label, false)
	if len(tools) == 0 {
		w("  \"tools\": [],\n")
	} else {
		w("  \"tools\": [\n")
		for i, t := range tools {
			w("    {\n")
			members := toolMembers(&t)
			for j, m := range members {
				member("      ", m.key, m.val, j == len(members)-1)
			}
			w("    }")
			if i < len(tools)-1 {
				w(",")
			}
			w("\n")
			if out.Len() > MaxFile {
				return nil, fmt.Errorf("the baseline of %q would be over %d MiB, more than mcpcheck reads back; not written", b.Label, MaxFile>>20)
			}
		}
		w("  ],\n")
	}
	member("  ", "version", Version, true)
	w("}\n")
	if out.Len() > MaxFile {
		return nil, fmt.Errorf("the baseline of %q would be over %d MiB, more than mcpcheck reads back; not written", b.Label, MaxFile>>20)
	}
	return out.Bytes(), nil
}

// keyValue is one member of a tool as Encode writes it.
type keyValue struct {
	key string
	val any
}

// toolMembers are t's members in key order, each past MaxMember replaced
// by its hash in "hashed".
func toolMembers(t *Tool) []keyValue {
	hashed := map[string]string{}
	for k, v := range t.Hashed {
		hashed[string(k)] = v
	}
	raw := func(key string, v json.RawMessage) any {
		if v == nil {
			return nil
		}
		if len(v) > MaxMember {
			hashed[key] = hashOf(v)
			return nil
		}
		return v
	}
	text := func(key, v string) any {
		if v == "" {
			return nil
		}
		if len(v) > MaxMember {
			hashed[key] = hashOf([]byte(v))
			return nil
		}
		return v
	}
	cand := []keyValue{
		{"annotations", raw("annotations", t.Annotations)},
		{"description", text("description", t.Description)},
		{"icons", raw("icons", t.Icons)},
		{"input_schema", raw("input_schema", t.InputSchema)},
		{"name", t.Name},
		{"output_schema", raw("output_schema", t.OutputSchema)},
		{"title", text("title", t.Title)},
	}
	var out []keyValue
	for _, kv := range cand {
		if kv.val != nil {
			out = append(out, kv)
		}
	}
	if len(hashed) > 0 {
		keys := make([]string, 0, len(hashed))
		for k := range hashed {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var h bytes.Buffer
		h.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				h.WriteString(",")
			}
			h.Write(encode(k))
			h.WriteString(":")
			h.Write(encode(hashed[k]))
		}
		h.WriteString("}")
		at := sort.Search(len(out), func(i int) bool { return out[i].key > "hashed" })
		out = slices.Insert(out, at, keyValue{"hashed", json.RawMessage(h.Bytes())})
	}
	return out
}

// isMcpsnoopFile reports whether data looks like a file mcpsnoop wrote.
func isMcpsnoopFile(data []byte) bool {
	var head struct {
		Format  *string         `json:"format"`
		Version json.RawMessage `json:"version"`
		Server  *string         `json:"server"`
	}
	if json.Unmarshal(data, &head) != nil {
		return false
	}
	return head.Format == nil && head.Version != nil && head.Server != nil && strings.TrimSpace(string(head.Version)) != ""
}
