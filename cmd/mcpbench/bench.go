package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// contentRules are the content-scanning rules: the default run has them
// on; the second row shows the run without them.
var contentRules = []string{"input-schema", "output-schema", "tool-poisoning", "secret-leak"}

// benchCase is one measured command on a capture.
type benchCase struct {
	name string
	args func(bin, work, file string) []string
	// floor names the decode, so its counts are compared with the others'.
	floor string
}

// The rows the summary lines compare, by index into cases.
const (
	rowDefault = 0 // mcpcheck check, every rule, text
	rowSARIF   = 1
)

func cases(withV2 bool) []benchCase {
	check := func(extra ...string) func(bin, work, file string) []string {
		return func(bin, work, file string) []string {
			args := []string{filepath.Join(bin, "mcpcheck"), "check", "--fail-on", "none"}
			args = append(args, extra...)
			return append(args, file)
		}
	}
	var disable []string
	for _, id := range contentRules {
		disable = append(disable, "--disable", id)
	}
	floor := func(which string) func(bin, work, file string) []string {
		return func(bin, work, file string) []string {
			return []string{filepath.Join(bin, "mcpbench"), "floor", which, file}
		}
	}
	outputs := func(bin, work, file string) []string {
		return check("--format", "sarif",
			"--output", "junit="+filepath.Join(work, "out.junit.xml"),
			"--output", "json="+filepath.Join(work, "out.json"))(bin, work, file)
	}
	cs := []benchCase{
		rowDefault: {name: "mcpcheck check (default: every rule)", args: check()},
		rowSARIF:   {name: "mcpcheck check --format sarif", args: check("--format", "sarif")},
		{name: "mcpcheck check: SARIF + JUnit + JSON", args: outputs},
		{name: "mcpcheck check, the four content rules off", args: check(disable...)},
		{name: "encoding/json decode (floor)", args: floor("v1"), floor: "v1"},
	}
	if withV2 {
		cs = append(cs, benchCase{name: "encoding/json/v2 decode", args: floor("v2"), floor: "v2"})
	}
	return cs
}

// ruleCases are the default run with one content rule off each: what
// each rule costs is the default run's time over its row's.
func ruleCases() []benchCase {
	var cs []benchCase
	for _, id := range contentRules {
		cs = append(cs, benchCase{name: "without " + id, args: func(bin, work, file string) []string {
			return []string{filepath.Join(bin, "mcpcheck"), "check", "--fail-on", "none", "--disable", id, file}
		}})
	}
	return cs
}

type sample struct{ wall, cpu, peakKiB, shimKiB int64 }

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcpbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("calls", "10k,100k", "capture sizes in tools/call requests, comma-separated (k and m suffixes)")
	runs := fs.Int("runs", 3, "interleaved runs of each command per size; the table shows the median")
	dir := fs.String("dir", "", "directory for the binaries and captures (default: a temporary one, removed)")
	procs := fs.String("gomaxprocs", "2", "GOMAXPROCS of every measured process")
	perSession := fs.Int("per-session", 20_000, "tools/call requests per session (each session starts with initialize and tools/list)")
	perRule := fs.Bool("rules", false, "also measure the default run with each content rule off, and print each rule's cost")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var calls []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseCount(s)
		if err != nil {
			return err
		}
		calls = append(calls, n)
	}
	work := *dir
	if work == "" {
		tmp, err := os.MkdirTemp("", "mcpbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	bin := filepath.Join(work, "bin")
	withV2, err := build(bin, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "GOMAXPROCS=%s, sessions of %d calls, %d interleaved runs each: median wall-clock MB/s and CPU-time MB/s (MB = 10^6 bytes), largest peak RSS\n", *procs, *perSession, *runs)
	if !withV2 {
		fmt.Fprintln(stdout, "encoding/json/v2 is unavailable in this toolchain (GOEXPERIMENT=jsonv2 build failed): its row is left out")
	}
	for _, n := range calls {
		file := filepath.Join(work, fmt.Sprintf("calls-%d.jsonl", n))
		size, err := generate(file, n, *perSession)
		if err != nil {
			return err
		}
		cs := cases(withV2)
		if *perRule {
			cs = append(cs, ruleCases()...)
		}
		if err := measure(stdout, stderr, bin, work, file, n, size, *runs, *procs, cs); err != nil {
			return err
		}
		os.Remove(file)
	}
	return nil
}

func parseCount(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1000, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mult, s = 1000_000, strings.TrimSuffix(s, "m")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// build compiles mcpcheck and this harness (with encoding/json/v2 when the
// toolchain has it behind GOEXPERIMENT=jsonv2) into bin.
func build(bin string, stderr io.Writer) (withV2 bool, err error) {
	goBuild := func(out, pkg string, env ...string) error {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, out), pkg)
		cmd.Env = append(os.Environ(), env...)
		var msg bytes.Buffer
		cmd.Stderr = &msg
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, msg.String())
		}
		return nil
	}
	if err := goBuild("mcpcheck", "github.com/mcpcheck/mcpcheck/cmd/mcpcheck"); err != nil {
		return false, err
	}
	if err := goBuild("mcpbench", "github.com/mcpcheck/mcpcheck/cmd/mcpbench", "GOEXPERIMENT=jsonv2"); err == nil {
		return true, nil
	} else {
		fmt.Fprintln(stderr, "mcpbench: without encoding/json/v2:", err)
	}
	return false, goBuild("mcpbench", "github.com/mcpcheck/mcpcheck/cmd/mcpbench")
}

func generate(file string, calls, perSession int) (int64, error) {
	f, err := os.Create(file)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, err := io.Copy(w, sessiontest.Calls(calls, perSession))
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

func measure(stdout, stderr io.Writer, bin, work, file string, calls int, size int64, runs int, procs string, cs []benchCase) error {
	samples := make([][]sample, len(cs))
	counts := map[string]string{}
	for r := range runs {
		for k := range cs {
			i := (k + r) % len(cs) // rotate the order: no command always runs first
			c := cs[i]
			home, err := os.MkdirTemp(work, "home-")
			if err != nil {
				return err
			}
			out := filepath.Join(work, "out")
			shim := exec.Command(filepath.Join(bin, "mcpbench"), append([]string{"peak", out}, c.args(bin, work, file)...)...)
			shim.Env = append(os.Environ(), "GOMAXPROCS="+procs, "MCPCHECK_HOME="+home, "NO_COLOR=1")
			shim.Stderr = stderr
			line, err := shim.Output()
			os.RemoveAll(home)
			if err != nil {
				return fmt.Errorf("%s: %v", c.name, err)
			}
			s, exit, err := parseSample(string(line))
			if err != nil {
				return fmt.Errorf("%s: %v", c.name, err)
			}
			if exit != 0 {
				return fmt.Errorf("%s exited %d", c.name, exit)
			}
			if c.floor != "" {
				got, _ := os.ReadFile(out)
				counts[c.floor] = strings.TrimSpace(string(got))
			}
			samples[i] = append(samples[i], s)
		}
	}
	// The floors must have decoded the same capture the same way.
	want := fmt.Sprintf("calls=%d", calls)
	for which, got := range counts {
		if !strings.HasSuffix(got, want) {
			return fmt.Errorf("floor %s counted %q, want %s", which, got, want)
		}
		if got != counts["v1"] {
			return fmt.Errorf("floor %s counted %q, v1 %q", which, got, counts["v1"])
		}
	}
	fmt.Fprintf(stdout, "\n| %s calls, %.2f GB | MB/s | CPU MB/s | peak RSS |\n|---|---|---|---|\n", human(calls), float64(size)/1e9)
	mbps, cpuMBps := make([]float64, len(cs)), make([]float64, len(cs))
	for i, c := range cs {
		walls := make([]int64, len(samples[i]))
		cpus := make([]int64, len(samples[i]))
		var peak, shim int64
		for j, s := range samples[i] {
			walls[j], cpus[j] = s.wall, s.cpu
			peak, shim = max(peak, s.peakKiB), max(shim, s.shimKiB)
		}
		mbps[i] = float64(size) / 1e6 / (float64(medianInt(walls)) / 1e9)
		cpuMBps[i] = float64(size) / 1e6 / (float64(medianInt(cpus)) / 1e9)
		note := ""
		if peak <= shim {
			note = " (≤ the shim's own: not measured)"
		}
		fmt.Fprintf(stdout, "| %s | %.0f | %.0f | %.1f MiB%s |\n", c.name, mbps[i], cpuMBps[i], float64(peak)/1024, note)
	}
	floorV2 := -1
	for i, c := range cs {
		if c.floor == "v2" {
			floorV2 = i
		}
	}
	if floorV2 >= 0 {
		fmt.Fprintf(stdout, "\ndefault check / encoding/json/v2 floor: %.2f× by wall clock, %.2f× by CPU time; ",
			mbps[rowDefault]/mbps[floorV2], cpuMBps[rowDefault]/cpuMBps[floorV2])
	} else {
		fmt.Fprint(stdout, "\n")
	}
	fmt.Fprintf(stdout, "SARIF / text: %.2f× the time by wall clock, %.2f× by CPU time\n",
		mbps[rowDefault]/mbps[rowSARIF], cpuMBps[rowDefault]/cpuMBps[rowSARIF])
	for i, c := range cs {
		if id, ok := strings.CutPrefix(c.name, "without "); ok {
			fmt.Fprintf(stdout, "%s: the default run takes %.2f× the time without it by wall clock, %.2f× by CPU time\n",
				id, mbps[i]/mbps[rowDefault], cpuMBps[i]/cpuMBps[rowDefault])
		}
	}
	return nil
}

func parseSample(line string) (s sample, exit int, err error) {
	fields := map[string]int64{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return s, 0, fmt.Errorf("bad measurement %q", line)
		}
		fields[k] = n
	}
	if _, ok := fields["wall_ns"]; !ok {
		return s, 0, fmt.Errorf("no measurement in %q", line)
	}
	return sample{fields["wall_ns"], fields["cpu_ns"], fields["maxrss_kib"], fields["shim_kib"]}, int(fields["exit"]), nil
}

func medianInt(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func human(n int) string {
	switch {
	case n >= 1000_000 && n%1000_000 == 0:
		return fmt.Sprintf("%dM", n/1000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}
