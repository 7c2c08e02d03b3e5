// Package sharedtest finds the shared checkout beside the repository
// (../shared: real captures, schemas) for tests. It is absent on a user's
// fresh clone, where the tests that need it skip; CI sets
// MCPCHECK_REQUIRE_SHARED=1 so that they fail instead of passing unseen.
package sharedtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// RequireEnv names the variable that turns a skip into a failure.
const RequireEnv = "MCPCHECK_REQUIRE_SHARED"

// Path returns the path of rel (slash-separated, e.g.
// "captures/02-filesystem-stdio-clean.jsonl") inside ../shared, found
// beside the module root from any package directory. When it is absent,
// t is skipped, or failed when MCPCHECK_REQUIRE_SHARED=1.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p, err := find(rel)
	if err == nil {
		return p
	}
	required, perr := Required()
	switch {
	case perr != nil:
		t.Fatal(perr)
	case required:
		t.Fatalf("%v, and %s=1 requires it: put the shared checkout beside the repository, or unset %s", err, RequireEnv, RequireEnv)
	default:
		t.Skipf("%v: skipped (set %s=1 to fail instead)", err, RequireEnv)
	}
	return ""
}

// Required reports whether MCPCHECK_REQUIRE_SHARED asks for the shared
// checkout; a value that is not a boolean is an error, not a quiet skip.
func Required() (bool, error) {
	v := os.Getenv(RequireEnv)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want 1 or 0", RequireEnv, v)
	}
	return b, nil
}

var errNoModule = errors.New("no go.mod above the working directory")

// find looks for rel in the shared checkout beside the module root.
func find(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errNoModule
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("../shared/%s is not beside this checkout", rel)
	}
	return p, nil
}
