package readers

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A format is one file plus its line in All: the package builds without
// any one format's file (and that line), so no format leans on another's
// helpers. Each build sees the package through a go build overlay that
// deletes the file; nothing on disk changes.
func TestEachFormatFileStandsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package once per format")
	}
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	declaredIn := typeFiles(t)
	list, err := os.ReadFile("formats.go")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs(".")
	for _, f := range All() {
		typ := reflect.TypeOf(f).Name()
		file := declaredIn[typ]
		entry := "\t\t" + typ + "{},\n"
		if file == "" || file == "formats.go" || strings.Count(string(list), entry) != 1 {
			t.Fatalf("format %s: type %s declared in %q, listed %d times in formats.go", f.Name(), typ, file, strings.Count(string(list), entry))
		}
		t.Run(f.Name(), func(t *testing.T) {
			without := filepath.Join(t.TempDir(), "formats.go")
			if err := os.WriteFile(without, []byte(strings.Replace(string(list), entry, "", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {
				filepath.Join(dir, file):         "", // deleted
				filepath.Join(dir, "formats.go"): without,
			}})
			ov := filepath.Join(t.TempDir(), "overlay.json")
			if err := os.WriteFile(ov, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(goTool, "build", "-overlay", ov, ".")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("without %s the package does not build: %v\n%s", file, err, out)
			}
		})
	}
}

// typeFiles maps each type the package declares to its file.
func typeFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, _ := filepath.Glob("*.go")
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					out[s.(*ast.TypeSpec).Name.Name] = p
				}
			}
		}
	}
	return out
}
