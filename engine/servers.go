package engine

import (
	"maps"
	"path"
	"time"

	"github.com/mcpcheck/mcpcheck/result"
)

// Server is the settings of the sessions whose server label matches
// Pattern (a label, or a path.Match glob): a configuration file's
// servers: entries.
type Server struct {
	Pattern string
	// Gate replaces the run's gate for the matching sessions; nil keeps it.
	Gate *result.Gate
	// Disabled rules' findings are neither reported nor counted for the
	// matching sessions.
	Disabled map[string]bool
	// Assertions add to the run's: tools are added to its lists, a budget
	// replaces the run's.
	Assertions Assertions
}

// serverSettings is what applies to one session: the run's settings with
// every matching Server applied in order.
type serverSettings struct {
	gate       result.Gate
	disabled   map[string]bool
	assertions Assertions
}

// settingsFor resolves the settings of a session of label.
func (cfg *Config) settingsFor(label string) *serverSettings {
	if len(cfg.Servers) == 0 {
		if cfg.base == nil { // one for every session of the run
			cfg.base = &serverSettings{gate: cfg.Gate, assertions: cfg.Assertions}
		}
		return cfg.base
	}
	s := &serverSettings{gate: cfg.Gate, assertions: cfg.Assertions}
	for i := range cfg.Servers {
		srv := &cfg.Servers[i]
		if ok, _ := path.Match(srv.Pattern, label); !ok || label == "" {
			continue
		}
		if srv.Gate != nil {
			s.gate = *srv.Gate
		}
		if len(srv.Disabled) > 0 {
			if s.disabled == nil {
				s.disabled = map[string]bool{}
			}
			maps.Copy(s.disabled, srv.Disabled)
		}
		a, b := &s.assertions, &srv.Assertions
		a.ExpectTools = append(a.ExpectTools[:len(a.ExpectTools):len(a.ExpectTools)], b.ExpectTools...)
		a.ForbidTools = append(a.ForbidTools[:len(a.ForbidTools):len(a.ForbidTools)], b.ForbidTools...)
		if b.MaxDuration != nil {
			a.MaxDuration = b.MaxDuration
		}
		if len(b.ToolMaxDuration) > 0 {
			a.ToolMaxDuration = maps.Clone(a.ToolMaxDuration)
			if a.ToolMaxDuration == nil {
				a.ToolMaxDuration = map[string]time.Duration{}
			}
			maps.Copy(a.ToolMaxDuration, b.ToolMaxDuration)
		}
		if b.MaxServerDuration != nil {
			a.MaxServerDuration = b.MaxServerDuration
		}
		if b.MaxRoundTrips > 0 {
			a.MaxRoundTrips = b.MaxRoundTrips
		}
	}
	return s
}
