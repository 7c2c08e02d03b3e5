// Package sariftest validates SARIF logs against the OASIS SARIF 2.1.0
// schema in tests. The schema lives in the shared checkout beside the
// repository (../shared/schemas) and may not be copied into it; where it is
// absent, validation is skipped (failed under MCPCHECK_REQUIRE_SHARED=1,
// see internal/sharedtest).
package sariftest

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
)

// SchemaID is the schema's own id, the one URL the compiler may know.
const SchemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SchemaFile is the schema's place in the shared checkout.
const SchemaFile = "schemas/sarif-schema-2.1.0.json"

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

// Schema compiles the shared SARIF schema once. Where it is absent, t is
// skipped, or failed under MCPCHECK_REQUIRE_SHARED=1.
func Schema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	path := sharedtest.Path(t, SchemaFile)
	once.Do(func() { schema, err = compile(path) })
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	return schema
}

func compile(path string) (*jsonschema.Schema, error) {
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
		if err := Problem(Schema(t), log); err != nil {
			t.Errorf("the SARIF log does not validate against the OASIS schema: %#v", err)
		}
	})
}
