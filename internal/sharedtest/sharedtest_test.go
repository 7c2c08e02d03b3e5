package sharedtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that notes a skip or failure instead of ending
// the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.failed = fmt.Sprint(args...) }

func TestPath(t *testing.T) {
	// tmp/repo is a module with tmp/shared beside it; tests run in a
	// package directory below the module root.
	tmp := t.TempDir()
	pkg := filepath.Join(tmp, "repo", "cmd", "x")
	for _, dir := range []string{pkg, filepath.Join(tmp, "shared", "captures")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(tmp, "repo", "go.mod"), filepath.Join(tmp, "shared", "captures", "a.jsonl")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(pkg)

	for _, c := range []struct {
		env, rel        string
		path            bool
		skipped, failed string
	}{
		{"", "captures/a.jsonl", true, "", ""},
		{"1", "captures/a.jsonl", true, "", ""},
		{"", "captures/b.jsonl", false, "../shared/captures/b.jsonl is not beside this checkout: skipped (set MCPCHECK_REQUIRE_SHARED=1 to fail instead)", ""},
		{"0", "captures/b.jsonl", false, "is not beside this checkout: skipped", ""},
		{"1", "captures/b.jsonl", false, "", "../shared/captures/b.jsonl is not beside this checkout, and MCPCHECK_REQUIRE_SHARED=1 requires it"},
		{"true", "captures/b.jsonl", false, "", "MCPCHECK_REQUIRE_SHARED=1 requires it"},
		{"yes", "captures/b.jsonl", false, "", `MCPCHECK_REQUIRE_SHARED="yes": want 1 or 0`},
	} {
		t.Setenv(RequireEnv, c.env)
		r := &recorder{TB: t}
		got := Path(r, c.rel)
		want := ""
		if c.path {
			want = filepath.Join(tmp, "repo", "..", "shared", filepath.FromSlash(c.rel))
		}
		if got != want || !contains(r.skipped, c.skipped) || !contains(r.failed, c.failed) {
			t.Errorf("%s=%q, %s: path %q, skipped %q, failed %q; want path %q, skipped %q, failed %q",
				RequireEnv, c.env, c.rel, got, r.skipped, r.failed, want, c.skipped, c.failed)
		}
	}
}

// contains is strings.Contains where an empty want means "nothing".
func contains(got, want string) bool {
	if want == "" {
		return got == ""
	}
	return strings.Contains(got, want)
}
