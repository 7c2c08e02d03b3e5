package engine

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/fingerprint"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/usage"
)

// Coverage is the run-wide coverage assertion (spec §5.2): a server label
// whose successfully called tools are under a share of those it
// advertised fails the run.
type Coverage struct {
	// MinTools is the share in percent every server must reach; nil
	// asserts nothing.
	MinTools *float64
	// ByServer overrides MinTools for the labels a key matches (a label
	// or a path.Match glob: the configuration file's servers section).
	ByServer map[string]float64
}

// forServer is the share a label must reach by ByServer: the last
// matching entry in the lexical order of the patterns, as the
// configuration file's servers apply.
func (c Coverage) forServer(label string) (float64, bool) {
	patterns := slices.Sorted(maps.Keys(c.ByServer))
	found, min := false, 0.0
	for _, p := range patterns {
		if ok, _ := path.Match(p, label); ok || p == label {
			found, min = true, c.ByServer[p]
		}
	}
	return min, found
}

func (cfg *Config) usageCollector() *usage.Collector {
	u := usage.New(cfg.MaxArgumentHashes)
	u.KeepDefinitions = cfg.KeepDefinitions
	return u
}

const (
	flakyCallID     = "flaky-call"
	minCoverageName = "min-tool-coverage"
)

// finishUsage completes the run from what its sessions did: the usage
// summary, the coverage assertions and the flaky-call findings, which
// compare captures and so can only be made once every one is read.
func finishUsage(u *usage.Collector, col *collector, sup *suppressor, cfg *Config) {
	res := col.res
	sum := u.Summary()
	res.Usage = sum
	for _, sv := range sum.Servers {
		min, ok := cfg.Coverage.forServer(sv.Label)
		if !ok && cfg.Coverage.MinTools == nil {
			continue
		}
		if !ok {
			min = *cfg.Coverage.MinTools
		}
		res.RunAssertions = append(res.RunAssertions, coverageAssertion(&sv, min))
	}
	if note := sum.LabelCapNote(); note != "" && (cfg.Coverage.MinTools != nil || len(cfg.Coverage.ByServer) > 0) {
		// fail closed: a server past the cap may be under its share
		res.RunAssertions = append(res.RunAssertions, result.Assertion{Name: minCoverageName, Arg: "every server",
			Message: note + ", so whether they reach the asserted coverage is unknown"})
	}
	if r := checks.Lookup(cfg.Rules, flakyCallID); r != nil {
		reportFlaky(sum, col, sup, cfg, r)
	}
}

func coverageAssertion(sv *usage.Server, min float64) result.Assertion {
	label := sv.Label
	if label == "" {
		label = "(unlabelled)"
	}
	a := result.Assertion{Name: minCoverageName, Arg: fmt.Sprintf("%g%%", min)}
	pct := sv.Tools.Percent()
	switch {
	case !sv.Tools.Listed:
		a.Message = fmt.Sprintf("server %s: no complete tools/list was recorded, so its tool coverage is unknown (at least %g%% asserted)", label, min)
	case pct < min:
		a.Message = fmt.Sprintf("server %s: tool coverage %.1f%% (%d of %d tools called successfully) is under %g%%", label, pct, sv.Tools.Succeeded, sv.Tools.Advertised, min)
		if len(sv.Tools.NeverCalled) > 0 {
			a.Message += "; never called: " + strings.Join(sv.Tools.NeverCalled, ", ")
		}
		if len(sv.Tools.FailedOnly) > 0 {
			a.Message += "; every call failed: " + strings.Join(sv.Tools.FailedOnly, ", ")
		}
	default:
		a.Passed = true
		a.Message = fmt.Sprintf("server %s: tool coverage %.1f%% (%d of %d tools called successfully)", label, pct, sv.Tools.Succeeded, sv.Tools.Advertised)
	}
	a.Message = secrets.Mask(checks.OneLine(a.Message))
	return a
}

// reportFlaky adds one flaky-call finding per tool and argument set,
// placed in the session of the failing call.
func reportFlaky(sum *usage.Summary, col *collector, sup *suppressor, cfg *Config, r *checks.Rule) {
	type where struct{ file, session string }
	want := map[where][]*result.Finding{}
	for _, sv := range sum.Servers {
		for _, fl := range sv.Flaky {
			msg := fmt.Sprintf("tools/call %q with the same arguments (hash %s) failed here (%s) and succeeded in %s:%d", fl.Tool, fl.ArgsHash, fl.FailKind, fl.OKAt.File, fl.OKAt.Line)
			fd := &result.Finding{
				Rule: r.ID, Signal: r.Signal, Severity: r.Severity,
				Message: secrets.Mask(checks.OneLine(msg)),
				File:    fl.FailedAt.File, Line: fl.FailedAt.Line, Session: fl.FailedSession, Label: sv.Label,
				Subject: "tools/call " + fl.Tool + " arguments " + fl.ArgsHash,
				Related: []result.Location{{File: fl.OKAt.File, Line: fl.OKAt.Line, Message: "the same call succeeded here"}},
			}
			k := where{fl.FailedAt.File, fl.FailedSession}
			want[k] = append(want[k], fd)
		}
	}
	if len(want) == 0 {
		return
	}
	// Each session is done with as it is read: a run of many sessions reads
	// them back from its spill one at a time, and holding the ones found
	// would hold every session with a flaky call, findings and all.
	for pos, s := range col.all() {
		k := where{s.File, s.ID}
		fds := want[k]
		if fds == nil {
			continue
		}
		delete(want, k) // the first session of that id in the file
		for _, fd := range fds {
			fd.Fingerprint = fingerprint.Of(s.Label, s.Ordinal, r.ID, fd.Subject, 0)
			fd.Suppressed = sup.decide(fd, s)
			sup.placed(s, pos)
			fd.Existing = cfg.Existing[fd.Fingerprint]
			fd.Gated = fd.Suppressed == nil && !fd.Existing && cfg.Gate.Selects(r)
			col.addFinding(pos, s, fd)
		}
		if len(want) == 0 {
			return
		}
	}
}

// flakyJudged is what flaky-call judged: the argument sets remembered, when
// there were captures to compare them across.
func flakyJudged(sum *usage.Summary) int64 {
	if sum == nil || sum.Captures < 2 {
		return 0
	}
	return int64(sum.ArgumentHashes)
}
