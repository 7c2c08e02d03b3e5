package safefile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// readQuickly is ReadFile that fails the test instead of hanging when the
// read blocks (a FIFO without a writer would block an ordinary open for
// ever).
func readQuickly(t *testing.T, path string, limit int64) ([]byte, error, time.Duration) {
	t.Helper()
	type answer struct {
		data []byte
		err  error
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		data, err := ReadFile(path, limit)
		done <- answer{data, err}
	}()
	select {
	case a := <-done:
		return a.data, a.err, time.Since(start)
	case <-time.After(5 * time.Second):
		t.Fatalf("ReadFile(%s) blocked for 5s", path)
		return nil, nil, 0
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.json")
	os.WriteFile(ok, []byte(`{"version": 1}`), 0o644)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, bytes.Repeat([]byte(" "), 101), 0o644)
	exact := filepath.Join(dir, "exact.json")
	os.WriteFile(exact, bytes.Repeat([]byte(" "), 100), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink("ok.json", link)

	cases := []struct {
		name, path string
		want       string // "" reads the file; else what the error says
	}{
		{"regular", ok, ""},
		{"link to a regular file", link, ""},
		{"exactly at the limit", exact, ""},
		{"over the limit", big, "is larger than 100 bytes, the most mcpcheck reads of such a file"},
		{"directory", dir, "is a directory, not a regular file"},
	}
	if runtime.GOOS != "windows" {
		zero := filepath.Join(dir, "zero.json")
		if err := os.Symlink("/dev/zero", zero); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path, want string }{"link to /dev/zero", zero, "is a link to /dev/zero, a character device, not a regular file"})
		cases = append(cases, struct{ name, path, want string }{"/dev/null", "/dev/null", "is a character device, not a regular file"})
		if fifo := mkfifo(t, dir); fifo != "" {
			cases = append(cases, struct{ name, path, want string }{"named pipe", fifo, "is a named pipe (FIFO), not a regular file"})
			l := filepath.Join(dir, "to-fifo.json")
			os.Symlink(fifo, l)
			cases = append(cases, struct{ name, path, want string }{"link to a named pipe", l, "is a link to " + fifo + ", a named pipe (FIFO), not a regular file"})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err, took := readQuickly(t, c.path, 100)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := os.ReadFile(c.path); !bytes.Equal(data, want) {
					t.Errorf("read %q, want %q", data, want)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want an *Error", err, err)
			}
			if se.Path != c.path || se.Problem != c.want || err.Error() != c.path+": "+c.want {
				t.Errorf("err = %q\nwant %q", err, c.path+": "+c.want)
			}
			if data != nil {
				t.Errorf("read %d bytes of a refused file", len(data))
			}
			t.Logf("refused in %v", took)
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "none.json"), 100)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}
	dangling := filepath.Join(t.TempDir(), "dangling.json")
	os.Symlink("nowhere", dangling)
	if _, err := ReadFile(dangling, 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dangling link: err = %v, want fs.ErrNotExist", err)
	}
}

// A FIFO with a writer that never stops (the attack: endless data) is
// refused just the same: nothing is read from it.
func TestReadFileFIFOWithWriter(t *testing.T) {
	fifo := mkfifo(t, t.TempDir())
	if fifo == "" {
		t.Skip("no named pipes here")
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		chunk := bytes.Repeat([]byte("x"), 4096)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	_, err, _ := readQuickly(t, fifo, 100)
	if err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("err = %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 512 << 10: "512 KiB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
