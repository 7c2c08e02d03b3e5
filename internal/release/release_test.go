package release

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

var script, _ = filepath.Abs(filepath.Join("..", "..", ".ci", "release"))

func release(t *testing.T, out string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(script, append(args, "--out", out)...)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// Done when: a release build names its archives as the Action downloads
// them, lists them in checksums.txt (sha256sum format) that verifies, is
// byte-identical when repeated, and its binary says its version and commit.
func TestReleaseArchivesAreNamedChecksummedAndReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a release build compiles mcpcheck")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: the script reads the commit")
	}
	target := runtime.GOOS + "/" + runtime.GOARCH
	if runtime.GOOS == "windows" {
		t.Skip("the script is bash")
	}
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if out, err := release(t, dir, "v9.8.7-rc.1", "--snapshot", "--targets", target); err != nil {
			t.Fatalf("release: %v\n%s", err, out)
		}
	}
	name := fmt.Sprintf("mcpcheck_9.8.7-rc.1_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	sums, err := os.ReadFile(filepath.Join(a, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(a, name))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x  %s\n", sha256.Sum256(data), name); string(sums) != want {
		t.Errorf("checksums.txt:\n%s\nwant:\n%s", sums, want)
	}
	again, _ := os.ReadFile(filepath.Join(b, "checksums.txt"))
	if string(again) != string(sums) {
		t.Errorf("two builds of one commit differ:\n%s\n%s", sums, again)
	}
	// the archive holds the binary, README.md and CHANGELOG.md at its top
	zr, err := gzip.NewReader(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	bin := filepath.Join(t.TempDir(), "mcpcheck")
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" {
			t.Errorf("%s is owned by %d/%d %q", h.Name, h.Uid, h.Gid, h.Uname)
		}
		if h.Name == "mcpcheck" {
			f, _ := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
			io.Copy(f, tr)
			f.Close()
		}
	}
	if strings.Join(names, " ") != "CHANGELOG.md README.md mcpcheck" {
		t.Errorf("archive holds %v", names)
	}
	out, err := exec.Command(bin, "version").Output()
	commit, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	want := regexp.MustCompile(`^mcpcheck v9\.8\.7-rc\.1 \(commit ` + string(commit[:12]) + `, built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, go`)
	if err != nil || !want.Match(out) {
		t.Errorf("version: %v %q", err, out)
	}
}

// Done when: without --snapshot the script builds only a tagged, clean
// HEAD, and refuses a version that is not a tag name.
func TestReleaseNeedsATag(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"1.2.3"}, "is not a version tag"},
		{[]string{"v1.2"}, "is not a version tag"},
		{[]string{"v1.2.3", "--targets", "plan9/386", "--snapshot"}, "unsupported target plan9/386"},
	} {
		out, err := release(t, t.TempDir(), c.args...)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
	}
	tagged, _ := exec.Command("git", "describe", "--exact-match", "--tags", "HEAD").Output()
	if len(tagged) == 0 {
		out, err := release(t, t.TempDir(), "v1.2.3")
		if err == nil || !(strings.Contains(out, "is not tagged v1.2.3") || strings.Contains(out, "the work tree has changes")) {
			t.Errorf("an untagged HEAD: %v\n%s", err, out)
		}
	}
}
