package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

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
// sorted by name, indented two spaces, so a checked-in baseline reads well
// in git diff and the same definitions always give the same bytes.
func Encode(b *Baseline) ([]byte, error) {
	name := FormatName
	label := b.Label
	f := file{
		Format:   &name,
		Version:  json.RawMessage(fmt.Sprint(Version)),
		Server:   &label,
		Revision: b.Revision,
		Recorded: b.Recorded,
		Accepted: b.Accepted,
		Tools:    append([]Tool{}, b.Tools...),
	}
	sortTools(f.Tools)
	raw, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	v, ok := decode(raw)
	if !ok {
		return nil, errors.New("baseline: encoding failed")
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
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
