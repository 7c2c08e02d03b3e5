package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleLogLevel = &Rule{
	ID:       "log-level",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request, session.Notification),
	Doc: Doc{
		Summary: "A log level that is not one of the eight syslog levels",
		Why: `Log levels are exactly debug, info, notice, warning, error, critical, alert and
emergency (the syslog severities of RFC 5424), in logging/setLevel, in
notifications/message and, under 2026-07-28, in the logLevel _meta field of a
request. Any other value (a misspelling, "warn", "fatal", a number) is
rejected by the receiver, or silently drops the messages it meant to ask for.`,
		Fix:   `Use one of the eight levels, in lower case.`,
		Bad:   `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"verbose"}}`,
		Good:  `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"debug"}}`,
		Since: "0.2.0",
	},
	New: func() Checker { return &logLevel{} },
}

var logLevels = map[string]bool{
	"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true,
}

type logLevel struct {
	Base
	once repeats
}

func (l *logLevel) Frame(p *Pass, f *session.Frame) {
	m := &f.Msg
	if (m.Kind != session.Request && m.Kind != session.Notification) || !judgeable(f) || f.Redacted {
		return
	}
	switch m.Method {
	case "logging/setLevel", "notifications/message":
		l.judge(p, f, mcp.Member(f.View().Params(), "level"), "level")
	}
	if m.Kind == session.Request && f.Direction == session.ClientToServer && f.View().ParamFields() != nil {
		if meta := f.View().Meta(); meta.Raw != nil {
			if v := mcp.Member(meta.Raw, "io.modelcontextprotocol/logLevel"); v != nil {
				l.judge(p, f, v, "logLevel _meta field")
			}
		}
	}
}

func (l *logLevel) judge(p *Pass, f *session.Frame, raw []byte, field string) {
	level, isString := jsonscan.String(raw)
	if isString && logLevels[level] {
		return
	}
	shown := Quote(string(raw), 40)
	if isString {
		shown = quoteName(level)
	}
	l.once.report(f.Msg.Method+" "+field+" "+string(raw), func() *Finding {
		if raw == nil {
			return p.Report(f, f.Msg.Method+" "+field, "%s without a %s", sent(f), field)
		}
		return p.Report(f, f.Msg.Method+" "+field, "%s with %s %s, which is not one of debug, info, notice, warning, error, critical, alert, emergency",
			sent(f), field, shown)
	})
}
