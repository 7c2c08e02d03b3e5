package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpcheck/mcpcheck/"

// deps lists the module's packages pkg depends on (go list -deps).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var mine []string
	for _, p := range strings.Fields(string(out)) {
		if rest, ok := strings.CutPrefix(p, module); ok {
			mine = append(mine, rest)
		}
	}
	return mine
}

// imports lists what pkg imports directly.
func imports(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, module+pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

func TestReportersNeverReachTheEngineOrTheReaders(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"report", "result"} {
		for _, d := range deps(t, pkg) {
			if d == "engine" || d == "readers" {
				t.Errorf("%s depends on %s: reporters render a result, they do not run or read", pkg, d)
			}
		}
	}
}

func TestRulesNeitherReadInputsNorSpill(t *testing.T) {
	t.Parallel()
	for _, d := range deps(t, "checks") {
		if d == "engine" || d == "readers" || d == "result" {
			t.Errorf("checks depends on %s: rules read frames and report, the engine does the rest", d)
		}
	}
	// Directly: session spills deferred frames and baseline writes its
	// files, but no rule file opens, writes or spills anything itself.
	for _, imp := range imports(t, "checks") {
		switch strings.TrimPrefix(imp, module) {
		case "os", "encoding/gob", "internal/spill", "internal/atomicfile", "internal/safefile":
			t.Errorf("checks imports %s: no rule opens a file or encodes a spill", imp)
		}
	}
}

// nonTestFiles parses the package's non-test files in dir.
func nonTestFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(name)] = f
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return files
}

func TestNoFormatLivesInSession(t *testing.T) {
	t.Parallel()
	for name, f := range nonTestFiles(t, "session") {
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "Detect" {
				t.Errorf("session/%s defines a Detect method: capture formats live in readers/", name)
			}
		}
	}
}

// TestChecksHoldsRulesAndTheirToolkit: every non-test file of checks/ but
// a handful (the Rule, Pass and catalogue API and the shared helpers)
// defines a rule.
func TestChecksHoldsRulesAndTheirToolkit(t *testing.T) {
	t.Parallel()
	var toolkit []string
	for name, f := range nonTestFiles(t, "checks") {
		defines := false
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.CompositeLit); ok {
				if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "Rule" {
					defines = true
				}
			}
			return !defines
		})
		if !defines {
			toolkit = append(toolkit, name)
		}
	}
	slices.Sort(toolkit)
	if len(toolkit) >= 10 {
		t.Errorf("%d files of checks/ define no rule (%s): engine and result code belongs in engine/ and result/, a helper of one rule in that rule's file", len(toolkit), strings.Join(toolkit, ", "))
	}
}

func TestNoTestOnlySetters(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"checks", "engine", "readers", "session", "report", "result", "facts", "mcp", "baseline", "cmd/mcpcheck"} {
		for name, f := range nonTestFiles(t, dir) {
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && strings.HasSuffix(fn.Name.Name, "ForTesting") {
					t.Errorf("%s/%s: %s: limits are values passed in, not globals set by tests", dir, name, fn.Name.Name)
				}
			}
		}
	}
}
