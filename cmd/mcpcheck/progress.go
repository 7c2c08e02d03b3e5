package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/readers"
)

// progress is the --progress line on stderr: bytes read of the total, MB/s
// and findings so far. When it is off nothing of it exists: no reader
// wrapper, no goroutine, no counter.
type progress struct {
	w        io.Writer
	terminal bool // redraw one line in place; otherwise a line per interval
	every    time.Duration
	total    int64 // bytes of the inputs that are files; 0 when unknown
	read     atomic.Int64
	found    atomic.Int64
	start    time.Time
	stop     chan struct{}
	done     sync.WaitGroup
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// newProgress decides from the --progress mode whether to show progress;
// nil means off. auto shows it only on a terminal, and never under CI
// (CI set), whose logs some runners record through a pseudo-terminal.
func newProgress(getenv func(string) string, mode string, stderr io.Writer) (*progress, error) {
	terminal := isTerminal(stderr)
	switch strings.ToLower(mode) {
	case "never":
		return nil, nil
	case "auto":
		if !terminal || getenv("CI") != "" || getenv("TERM") == "dumb" {
			return nil, nil
		}
	case "always":
	default:
		return nil, oneOf("--progress", mode, "auto", "always", "never")
	}
	every := 2 * time.Second // a line each, in a log
	if terminal {
		every = 250 * time.Millisecond
	}
	return &progress{w: stderr, terminal: terminal, every: every}, nil
}

// wrap makes sources count the bytes read from them, and sums the sizes of
// those that are files into the total (standard input has none).
func (p *progress) wrap(sources []readers.Source) {
	for i := range sources {
		if info, err := os.Stat(sources[i].Name); err == nil && info.Mode().IsRegular() {
			p.total += info.Size()
		} else {
			p.total = -1 << 62 // one input of unknown size makes the total unknown
		}
		open := sources[i].Open
		sources[i].Open = func() (io.ReadCloser, error) {
			rc, err := open()
			if err != nil {
				return nil, err
			}
			return &countingReader{rc, &p.read}, nil
		}
	}
	if p.total < 0 {
		p.total = 0
	}
}

type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (r *countingReader) Read(b []byte) (int, error) {
	n, err := r.ReadCloser.Read(b)
	r.n.Add(int64(n))
	return n, err
}

// begin starts the line; end prints its last state and stops.
func (p *progress) begin() {
	p.start, p.stop = time.Now(), make(chan struct{})
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.print(false)
			}
		}
	}()
}

func (p *progress) end() {
	close(p.stop)
	p.done.Wait()
	p.print(true)
}

func (p *progress) print(last bool) {
	line := p.line(p.read.Load(), p.found.Load(), time.Since(p.start))
	switch {
	case p.terminal && last:
		fmt.Fprintf(p.w, "\r\x1b[K%s\n", line)
	case p.terminal:
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	default:
		fmt.Fprintln(p.w, line)
	}
}

func (p *progress) line(read, found int64, elapsed time.Duration) string {
	var b strings.Builder
	b.WriteString("mcpcheck: read ")
	b.WriteString(megabytes(read))
	if p.total > 0 {
		fmt.Fprintf(&b, " of %s (%d%%)", megabytes(p.total), min(100, read*100/p.total))
	}
	if s := elapsed.Seconds(); s > 0 {
		fmt.Fprintf(&b, ", %.0f MB/s", float64(read)/1e6/s)
	}
	fmt.Fprintf(&b, ", %d finding", found)
	if found != 1 {
		b.WriteString("s")
	}
	return b.String()
}

func megabytes(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
