package checks

import (
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleSecretLeak = &Rule{
	ID:       "secret-leak",
	Signal:   SignalSecurity,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A credential-shaped value in arguments, results, headers or stderr",
		Why: `Whatever crosses an MCP session is seen by the model, logged by the client and
kept in the capture: a token in a tool's arguments, a .env file in a result,
a key in a server's stderr is a leaked credential, and the capture itself is
now a secret that sits in CI artifacts.

The rule recognises cloud keys (AWS access key IDs, Google API keys), GitHub,
GitLab, Slack, Stripe, OpenAI and Anthropic tokens by their published formats,
private key blocks, JWTs, bearer tokens, passwords in URLs, and high-entropy
values under secret-named keys (api_key, client_secret, password, …). It never
judges the protocol's own opaque values (progressToken, requestState, cursors,
task and session ids), nor ordinary ids, hashes, UUIDs or base64 contents.

One finding per field of a frame, listing every kind found there. The secret is
never printed: the finding names its kind, its JSON path and a short hash (the
first 8 hex digits of its SHA-256) to recognise a known credential by. Every
other rule's messages are masked the same way.`,
		Fix: `Revoke and rotate the credential, then keep it out of the session: pass
credentials to a server through its environment or configuration, not
through tool arguments, and do not return them in results or print them.`,
		Bad:   `{"method":"tools/call","params":{"name":"deploy","arguments":{"token":"ghp_…36 characters…"}}}`,
		Good:  `{"method":"tools/call","params":{"name":"deploy","arguments":{"environment":"staging"}}}`,
		Since: "0.2.0",
	},
	New: EachFrame(secretLeak),
}

// Prescan is the per-frame work of rules that needs no session state,
// for the engine to run where frames are decoded (session.Prescanner):
// nil when none of rules has any.
func Prescan(rules []*Rule) func(*session.Frame) session.Marks {
	if Lookup(rules, ruleSecretLeak.ID) == nil {
		return nil
	}
	return secretPrescan
}

// markQuiet is set in a frame's marks when secret-leak has nothing to
// look at in it: the prescan looked at every part the rule reads and found
// none suspect, and the frame has no headers, which only the rule reads.
const markQuiet session.Marks = 1 << 63

// Quiet reports whether a frame's prescan marks m excuse the rules Prescan
// stands for (Prescanned) from the frame: the engine does not call them
// for it, as it does not for a kind of message a rule does not see.
func Quiet(m session.Marks) bool { return m&markQuiet != 0 }

// Prescanned reports whether Prescan does r's first look at each frame,
// so that Quiet speaks for it.
func Prescanned(r *Rule) bool { return r.ID == ruleSecretLeak.ID }

// protocolFields hold the protocol's own opaque values: tokens, states and
// ids a server or client invents, never a user's credential.
var protocolFields = []string{"progressToken", "requestState", "cursor", "nextCursor", "taskId", "sessionId", "requestId", "lastEventId"}

// The parts of a frame secret-leak's prefilter (secrets.Suspect) looks
// at. Its prescan marks bit k when it looked at part k, and bit
// k+numParts when that part is suspect.
const (
	partText = iota
	partRaw
	partParams
	partResult
	partErrorMessage
	partErrorData
	numParts
)

// secretPrescan is secret-leak's first look at every part of a frame the
// rule will look at, taken where the frame is decoded (on the reader's
// goroutine when a capture is read by two): the closer look, which walks
// the few suspect values, stays with the rule.
func secretPrescan(f *session.Frame) session.Marks {
	var m session.Marks
	look := func(part int, suspect bool) {
		m |= 1 << part
		if suspect {
			m |= 1 << (part + numParts)
		}
	}
	if f.HasText {
		look(partText, secrets.Suspect(f.Text))
	}
	switch {
	case f.Raw == nil:
	case !f.IsProtocol() || f.Msg.Kind == session.Invalid:
		look(partRaw, secrets.Suspect(f.Raw))
	default:
		if f.Msg.Params != nil {
			look(partParams, secrets.Suspect(f.Msg.Params))
		}
		if f.Msg.Result != nil {
			look(partResult, secrets.Suspect(f.Msg.Result))
		}
		if e := f.Msg.Error; e != nil {
			look(partErrorMessage, secrets.Suspect(e.Message))
			if e.Data != nil {
				look(partErrorData, secrets.Suspect(e.Data))
			}
		}
	}
	if m>>numParts == 0 && len(f.ParamHeaders) == 0 && f.MCPName == "" {
		m |= markQuiet
	}
	return m
}

// suspect is secrets.Suspect of part b of f, from the frame's prescan
// when it looked at that part.
func suspect[T ~string | ~[]byte](f *session.Frame, part int, b T) bool {
	if m, ok := f.Marks(); ok && m&(1<<part) != 0 {
		return m&(1<<(part+numParts)) != 0
	}
	return secrets.Suspect(b)
}

func secretLeak(p *Pass, f *session.Frame) {
	if f.HasText && suspect(f, partText, f.Text) {
		what, subject := "stderr line", "stderr"
		if f.Direction != session.Stderr {
			what, subject = f.Direction.String()+" text", f.Direction.String()+" text"
		}
		reportSecrets(p, f, what, subject, "", secrets.Find(f.Text), f.Text)
	}
	if f.Raw == nil {
		return
	}
	if !f.IsProtocol() || f.Msg.Kind == session.Invalid {
		// The recorder's session description (a command line may carry a
		// key), JSON that is not JSON-RPC (a gateway's error body), or the
		// raw value of an envelope whose direction is unknown.
		if suspect(f, partRaw, f.Raw) {
			what := "raw " + f.Direction.String() + " value"
			if f.Direction == session.Meta {
				what = "session description"
			}
			scanJSON(p, f, what, f.Direction.String(), "raw", partRaw, f.Raw)
		}
		return
	}
	m := &f.Msg
	scanJSON(p, f, "", "", "params", partParams, f.View().Params())
	scanJSON(p, f, "", "", "result", partResult, f.View().Result())
	if m.Error != nil {
		if suspect(f, partErrorMessage, m.Error.Message) {
			reportSecrets(p, f, "", "", "error.message", secrets.Find(m.Error.Message), m.Error.Message)
		}
		scanJSON(p, f, "", "", "error.data", partErrorData, m.Error.Data)
	}
	if len(f.ParamHeaders) == 0 && f.MCPName == "" {
		return
	}
	for _, h := range f.ParamHeaders {
		if h.Redacted {
			continue
		}
		value := headerValue(h.Value)
		ms := secrets.Find(value)
		name := strings.TrimPrefix(strings.ToLower(h.Name), "mcp-param-")
		if password, ok := secrets.SecretName(name); ok && len(ms) == 0 && secrets.PlausibleSecret(value, password) {
			ms = []secrets.Match{{Kind: secrets.NamedSecret, Start: 0, End: len(value)}}
		}
		reportSecrets(p, f, "", "", "header "+h.Name, ms, value)
	}
	if f.MCPName != "" {
		value := headerValue(f.MCPName)
		reportSecrets(p, f, "", "", "header Mcp-Name", secrets.Find(value), value)
	}
}

// secretWhere names a protocol frame for messages and subjects: its method
// and the tool or prompt it is about, never its id. Only a finding asks.
func secretWhere(f *session.Frame) (what, subject string) {
	method, name := f.Msg.Method, ""
	if pf := f.View().ParamFields(); pf != nil {
		name = pf.Name
	}
	kind := "request"
	switch {
	case f.Msg.Kind == session.Notification:
		kind = "notification"
	case f.Msg.Kind == session.Response && f.Call != nil:
		kind, method, name = "answer to", f.Call.Method, f.Call.Name
	case f.Msg.Kind == session.Response:
		return "response", "response"
	}
	what, subject = kind+" "+method, method
	if name != "" && (method == "tools/call" || method == "prompts/get") {
		what += " " + quoteName(name)
		subject += " " + name
	}
	return what, subject
}

// scanJSON reports the fields of one JSON value (params, result, …) that
// hold credential-shaped values. Only a value Suspect picks is walked, and
// in it only the strings that could hold one are decoded. what and subject
// name the frame ("" for a protocol message: secretWhere); part is which
// of the frame's parts raw is.
func scanJSON(p *Pass, f *session.Frame, what, subject, prefix string, part int, raw []byte) {
	if raw == nil || !suspect(f, part, raw) {
		return
	}
	_ = jsonscan.Strings(raw, func(path []jsonscan.PathStep, str []byte) {
		var key []byte
		for _, s := range path {
			if s.Key != nil {
				if slices.Contains(protocolFields, string(s.Key)) {
					return
				}
				key = s.Key
			}
		}
		password, named := false, false
		if key != nil {
			password, named = secrets.SecretName(key)
		}
		if !named && !secrets.Suspect(str) {
			return
		}
		text, ok := jsonscan.String(str)
		if !ok {
			return
		}
		ms := secrets.Find(text)
		if named && !covered(ms, len(text)) && secrets.PlausibleSecret(text, password) {
			ms = append([]secrets.Match{{Kind: secrets.NamedSecret, Start: 0, End: len(text)}}, ms...)
		}
		reportSecrets(p, f, what, subject, prefix+pathString(path), ms, text)
	})
}

// covered reports whether a match already spans the whole value.
func covered(ms []secrets.Match, n int) bool {
	return len(ms) == 1 && ms[0].Start == 0 && ms[0].End == n
}

// reportSecrets reports one field with every credential in it, by kind and
// hash, never the value.
func reportSecrets(p *Pass, f *session.Frame, what, subject, field string, ms []secrets.Match, text string) {
	if len(ms) == 0 {
		return
	}
	if what == "" {
		what, subject = secretWhere(f)
	}
	var found []string
	for _, m := range ms {
		k := m.Kind.String() + " (sha256:" + secrets.Hash(text[m.Start:m.End]) + ")"
		if !slices.Contains(found, k) {
			found = append(found, k)
		}
	}
	where := what
	if field != "" {
		where += " at " + field
		subject += " " + field
	}
	p.Report(f, subject, "credential in %s: %s", where, strings.Join(found, ", "))
}

// headerValue is what a header stands for, its base64 sentinel decoded.
func headerValue(v string) string {
	if d, ok := mcp.DecodeHeaderValue(v); ok {
		return d
	}
	return v
}
