package checks

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Evidence renders a text a server wrote (an error message, a tool's error
// content) for the end of a finding's message, quoted and at most max
// runes. Servers often put a JSON payload there: a validation library's
// list of issues (zod's `[{"code":…,"path":[…],"message":…}]`), or an
// error object. Escaped JSON cut at a line's length hides the one useful
// part, so a payload is summarised first: each issue's message and where
// it points ("expected string, received undefined at params.name"), else
// the object's message. Any text before the payload ("MCP error -32603: ")
// is kept.
func Evidence(text string, max int) string {
	return Quote(summarisePayload(text), max)
}

// maxPayload is the longest text Evidence decodes as JSON; a longer one is
// shown as it is (Quote shows only its beginning anyway).
const maxPayload = 64 << 10

// summarisePayload returns text with a JSON payload it carries (whole, or
// after a "prefix: ") replaced by its summary; text itself when it carries
// none or the payload says nothing a summary can keep.
func summarisePayload(text string) string {
	t := strings.TrimSpace(text)
	if len(t) > maxPayload {
		return text
	}
	prefix, payload := "", t
	if i := strings.IndexAny(t, "[{"); i > 0 {
		if !strings.HasSuffix(strings.TrimRight(t[:i], " "), ":") {
			return text
		}
		prefix, payload = strings.TrimRight(t[:i], " ")+" ", t[i:]
	}
	if payload == "" || (payload[0] != '[' && payload[0] != '{') {
		return text
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.UseNumber()
	if dec.Decode(&v) != nil || dec.More() {
		return text
	}
	var parts []string
	switch v := v.(type) {
	case []any:
		for _, item := range v {
			if s := issueSummary(item); s != "" {
				parts = append(parts, s)
			}
		}
	case map[string]any:
		if s := issueSummary(v); s != "" {
			parts = append(parts, s)
		} else if s := oauthSummary(v); s != "" {
			parts = append(parts, s) // {"error":"invalid_token","error_description":…}
		} else if s := issueSummary(v["error"]); s != "" {
			parts = append(parts, s) // {"error":{"message":…}}
		} else if issues, ok := v["issues"].([]any); ok { // a validation error object
			for _, item := range issues {
				if s := issueSummary(item); s != "" {
					parts = append(parts, s)
				}
			}
		}
	}
	if len(parts) == 0 {
		return text
	}
	return prefix + strings.Join(parts, "; ")
}

// issueSummary is "MESSAGE at PATH" of one issue object, "MESSAGE" when it
// has no path, "" when it has no message.
func issueSummary(v any) string {
	obj, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	msg, _ := obj["message"].(string)
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if at := issuePath(obj["path"]); at != "" {
		return msg + " at " + at
	}
	return msg
}

// oauthSummary is "CODE: DESCRIPTION" of an OAuth 2.0 error response
// (RFC 6749 §5.2, what an authorization layer in front of a server
// answers), "" when obj is not one.
func oauthSummary(obj map[string]any) string {
	code, _ := obj["error"].(string)
	if code == "" {
		return ""
	}
	if d, _ := obj["error_description"].(string); strings.TrimSpace(d) != "" {
		return code + ": " + strings.TrimSpace(d)
	}
	return code
}

// issuePath renders a path array as a reader writes it: params.items[0].name.
// A path given as a string (a JSON pointer or dotted path) is kept as is.
func issuePath(v any) string {
	switch p := v.(type) {
	case string:
		return p
	case []any:
		var b bytes.Buffer
		for _, el := range p {
			switch el := el.(type) {
			case json.Number:
				b.WriteString("[" + el.String() + "]")
			case string:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(el)
			}
		}
		return b.String()
	}
	return ""
}

// Token renders a JSON token from the capture (an id, a progress token) as
// it was written, for a message: a string in double quotes, once ("job",
// never "\"job\""), anything else bare (1, null, {"seq":4}), at most max
// runes, with invisible characters escaped as Quote does.
func Token(tok string, max int) string {
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "(none)"
	}
	if tok[0] == '"' {
		var s string
		if json.Unmarshal([]byte(tok), &s) == nil {
			return Quote(s, max)
		}
	}
	shown := Quote(tok, max)
	return unescapeQuotes.Replace(shown[1 : len(shown)-1])
}

// unescapeQuotes undoes what Quote escapes so that text can sit in quotes.
var unescapeQuotes = strings.NewReplacer(`\\`, `\`, `\"`, `"`)
