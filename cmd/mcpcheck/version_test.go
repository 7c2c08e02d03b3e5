package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func vcs(rev, time, modified string) []debug.BuildSetting {
	return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: time}, {Key: "vcs.modified", Value: modified}}
}

func TestVersionComesFromTheBuild(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name            string
		ldv, ldc, ldd   string
		info            *debug.BuildInfo
		version, commit string
		date            string
		dirty           bool
	}{
		{"release", "v0.3.0", rev, "2026-12-01T10:00:00Z", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.3.0", rev, "2026-12-01T10:00:00Z", false},
		{"go install of a tag", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: vcs(rev, "2026-11-30T09:00:00Z", "false")}, "v0.3.0", rev, "2026-11-30T09:00:00Z", false},
		{"clean local build", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.1-0.20261130090000-0123456789ab"}, Settings: vcs(rev, "2026-11-30T09:00:00Z", "false")}, "v0.2.1-0.20261130090000-0123456789ab", rev, "2026-11-30T09:00:00Z", false},
		{"dirty local build", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.1-0.20261130090000-0123456789ab+dirty"}, Settings: vcs(rev, "2026-11-30T09:00:00Z", "true")}, "(devel)", rev, "2026-11-30T09:00:00Z", true},
		{"no build information", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)", "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := describeBuild(c.ldv, c.ldc, c.ldd, c.info)
			if b.Version != c.version || b.Commit != c.commit || b.Date != c.date || b.Dirty != c.dirty {
				t.Errorf("got %+v", b)
			}
		})
	}
	b := describeBuild("v0.3.0", rev, "2026-12-01T10:00:00Z", nil)
	if s := b.String(); !strings.HasPrefix(s, "mcpcheck v0.3.0 (commit 0123456789ab, built 2026-12-01T10:00:00Z, go") {
		t.Errorf("String() = %q", s)
	}
	code, out, _ := invoke(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "mcpcheck ") {
		t.Errorf("version: exit %d %q", code, out)
	}
}
