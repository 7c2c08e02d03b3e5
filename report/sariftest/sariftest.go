// Package sariftest validates SARIF logs against the OASIS SARIF 2.1.0
// schema in tests. The schema lives in the shared checkout beside the
// repository (../shared/schemas) and may not be copied into it; where it is
// absent, validation is skipped with a reason.
package sariftest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaID is the schema's own id, the one URL the compiler may know.
const SchemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// ErrAbsent means the shared schema is not beside this checkout.
var ErrAbsent = errors.New("the SARIF schema (../shared/schemas/sarif-schema-2.1.0.json) is not beside this checkout")

// refuseLoader loads nothing: a schema that refers elsewhere (file://,
// https://) fails to compile instead of reading local files or the network.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: only the SARIF schema itself is available", url)
}

// NewCompiler is a schema compiler that loads no URL at all, so a hostile
// schema can neither read local files nor reach the network.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.AssertFormat() // uri and uri-reference formats check the artifact URIs
	return c
}

var (
	once   sync.Once
	schema *jsonschema.Schema
	err    error
)

// Schema compiles the shared SARIF schema once; ErrAbsent when it is not there.
func Schema() (*jsonschema.Schema, error) {
	once.Do(func() { schema, err = compile() })
	return schema, err
}

func compile() (*jsonschema.Schema, error) {
	path, err := schemaPath()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaID)
}

// schemaPath finds ../shared beside the module root, from any package dir.
func schemaPath() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", "schemas", "sarif-schema-2.1.0.json")
			if _, err := os.Stat(p); err != nil {
				return "", ErrAbsent
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrAbsent
		}
		dir = parent
	}
}

// Problem is why log does not validate, or nil.
func Problem(sch *jsonschema.Schema, log []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(doc)
}

// Validate fails t when log does not validate against the schema. It runs
// as a subtest, so that without ../shared only the validation is skipped
// and the caller's other checks still run.
func Validate(t *testing.T, log []byte) {
	t.Helper()
	t.Run("sarif-schema", func(t *testing.T) {
		sch, err := Schema()
		if errors.Is(err, ErrAbsent) {
			t.Skip(err.Error() + ": schema validation skipped; structural checks still run")
		}
		if err != nil {
			t.Fatalf("compiling the SARIF schema: %v", err)
		}
		if err := Problem(sch, log); err != nil {
			t.Errorf("the SARIF log does not validate against the OASIS schema: %#v", err)
		}
	})
}
