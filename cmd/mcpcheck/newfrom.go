package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"

	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
)

// coverageFlag is --min-tool-coverage as the engine takes it: nil when not
// given; a percentage from 0 to 100 otherwise.
func coverageFlag(pct float64, set bool) (*float64, error) {
	if !set {
		return nil, nil
	}
	if math.IsNaN(pct) || pct < 0 || pct > 100 {
		return nil, usagef("--min-tool-coverage: %g is not a percentage from 0 to 100", pct)
	}
	return &pct, nil
}

// maxReportBytes bounds an earlier report read whole (--new-from, diff).
const maxReportBytes = 512 << 20

// readReport reads an earlier run's JSON report (--format json).
func readReport(path, flag string) (*report.JSONReport, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, usagef("%s: %v", flag, err)
	}
	if info.Size() > maxReportBytes {
		return nil, usagef("%s: %s is %d bytes, more than a JSON report of mcpcheck may be (%d)", flag, path, info.Size(), maxReportBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("%s: %v", flag, err)
	}
	return parseReport(path, flag, b)
}

func parseReport(path, flag string, b []byte) (*report.JSONReport, error) {
	var rep report.JSONReport
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rep); err != nil {
		line := 1
		if se, ok := err.(*json.SyntaxError); ok {
			line += bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
		} else if te, ok := err.(*json.UnmarshalTypeError); ok {
			line += bytes.Count(b[:min(int(te.Offset), len(b))], []byte("\n"))
		}
		return nil, usagef("%s: %s:%d: not a JSON report of mcpcheck: %v; write one with --format json or --output json=PATH", flag, path, line, err)
	}
	if rep.Version != report.JSONVersion || rep.Sessions == nil {
		return nil, usagef("%s: %s:1: not a JSON report of mcpcheck (version %d, %d sessions); write one with --format json or --output json=PATH", flag, path, rep.Version, len(rep.Sessions))
	}
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			if !result.ValidFingerprint(f.Fingerprint) {
				return nil, usagef("%s: %s: finding %q of rule %s has no valid fingerprint", flag, path, f.Fingerprint, f.Rule)
			}
		}
	}
	return &rep, nil
}

// loadNewFrom is the set of fingerprints an earlier report holds.
func loadNewFrom(path string) (map[string]bool, error) {
	rep, err := readReport(path, "--new-from")
	if err != nil {
		return nil, err
	}
	fps := map[string]bool{}
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			fps[f.Fingerprint] = true
		}
	}
	return fps, nil
}
