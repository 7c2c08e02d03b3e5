package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"
)

// Set at link time by the release script (-ldflags "-X main.version=v1.2.3
// -X main.commit=… -X main.date=…"); otherwise read from the build
// information Go stamps into every binary.
var (
	version = ""
	commit  = ""
	date    = ""
)

// build is what mcpcheck version reports.
type build struct {
	Version string // v1.2.3, a Go pseudo-version, or (devel)
	Commit  string // the VCS revision; "" when unknown
	Date    string // when it was built (release) or committed (go install); "" when unknown
	Dirty   bool   // built from a work tree with changes
}

// describeBuild is the build of this binary from the link-time values and
// the build information. The version is (devel) only for a build whose
// tree had changes, or that carries no version at all (go build with
// -buildvcs=false): a clean go install of a tag or commit names it.
func describeBuild(ldVersion, ldCommit, ldDate string, info *debug.BuildInfo) build {
	b := build{Version: ldVersion, Commit: ldCommit, Date: ldDate}
	var vcsTime string
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				b.Dirty = s.Value == "true"
			}
		}
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
	}
	if b.Date == "" {
		b.Date = vcsTime
	}
	if strings.HasSuffix(b.Version, "+dirty") {
		b.Dirty = true
	}
	if b.Version == "" || (b.Dirty && ldVersion == "") {
		b.Version = "(devel)"
	}
	return b
}

// thisBuild is describeBuild of the running binary.
func thisBuild() build {
	info, _ := debug.ReadBuildInfo()
	return describeBuild(version, commit, date, info)
}

// mcpcheckVersion is the version reports carry (SARIF, JUnit).
func mcpcheckVersion() string { return thisBuild().Version }

func (b build) String() string {
	var parts []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Dirty {
			c += ", modified"
		}
		parts = append(parts, "commit "+c)
	}
	if b.Date != "" {
		parts = append(parts, "built "+b.Date)
	}
	parts = append(parts, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("mcpcheck %s (%s)", b.Version, strings.Join(parts, ", "))
}

// runVersion is mcpcheck version.
func (c *command) runVersion(args []string, stdout io.Writer) (int, error) {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return exitUsage, flagError("version", fs, err)
	}
	if *help {
		fmt.Fprint(stdout, versionUsage+fs.FlagUsages())
		return exitPassed, nil
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("version takes no arguments")
	}
	_, err := fmt.Fprintln(stdout, thisBuild())
	return exitPassed, err
}
