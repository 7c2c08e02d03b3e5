package checks

import "strings"

// SpecRef names a section of a specification a rule enforces: the
// protocol revision, the section as the page titles it, and a link.
type SpecRef struct {
	Revision string // 2025-11-25, 2026-07-28, … or "JSON-RPC 2.0"
	Section  string
	URL      string
}

func (s SpecRef) String() string { return s.Revision + " " + s.Section + " <" + s.URL + ">" }

// mcpSpec is a section of the MCP specification page at path (as the
// specification's repository names it, docs/specification/REV/PATH.mdx).
func mcpSpec(rev, path, section string) SpecRef {
	path = strings.TrimSuffix(strings.TrimSuffix(path, ".mdx"), "/index")
	if path == "index" {
		path = ""
	}
	url := "https://modelcontextprotocol.io/specification/" + rev
	if path != "" {
		url += "/" + path
	}
	return SpecRef{Revision: rev, Section: section, URL: url}
}

// jsonRPC is a section of the JSON-RPC 2.0 specification, which every MCP
// revision requires messages to follow.
func jsonRPC(section string) SpecRef {
	return SpecRef{Revision: "JSON-RPC 2.0", Section: section, URL: "https://www.jsonrpc.org/specification"}
}

// specRefs are the sections each protocol rule enforces, from the
// citations of ../shared/spec/mcp-protocol-rules.md (the specification at
// commit b0f60ba). Rules about the capture, the run or its bookkeeping
// (internal-error, invalid-envelope, missing-frames, …) enforce none.
var specRefs = map[string][]SpecRef{
	"jsonrpc-error":         {mcpSpec("2025-11-25", "basic/index", "Responses"), jsonRPC("5.1 Error object")},
	"tool-error":            {mcpSpec("2025-11-25", "server/tools", "Error Handling")},
	"http-error":            {mcpSpec("2025-11-25", "basic/transports", "Sending Messages to the Server")},
	"task-failed":           {mcpSpec("2025-11-25", "basic/utilities/tasks", "Task Status")},
	"invalid-frame":         {mcpSpec("2025-11-25", "basic/transports", "stdio"), jsonRPC("4 Request object")},
	"jsonrpc-version":       {mcpSpec("2025-11-25", "basic/index", "Messages"), jsonRPC("4 Request object")},
	"request-id":            {mcpSpec("2025-11-25", "basic/index", "Requests")},
	"response-shape":        {mcpSpec("2025-11-25", "basic/index", "Responses"), jsonRPC("5 Response object")},
	"id-reuse":              {mcpSpec("2025-11-25", "basic/index", "Requests")},
	"unmatched-response":    {mcpSpec("2025-11-25", "basic/index", "Responses"), jsonRPC("5 Response object")},
	"duplicate-response":    {jsonRPC("5 Response object")},
	"lifecycle":             {mcpSpec("2025-11-25", "basic/lifecycle", "Initialization"), mcpSpec("2025-11-25", "basic/lifecycle", "Version Negotiation")},
	"capability":            {mcpSpec("2025-11-25", "basic/lifecycle", "Capability Negotiation"), mcpSpec("2026-07-28", "basic/index", "_meta")},
	"progress":              {mcpSpec("2025-11-25", "basic/utilities/progress", "Progress Flow"), mcpSpec("2026-07-28", "basic/patterns/progress", "Progress")},
	"cancel":                {mcpSpec("2025-11-25", "basic/utilities/cancellation", "Cancellation Flow"), mcpSpec("2026-07-28", "basic/patterns/cancellation", "Cancellation")},
	"tool-schema-root":      {mcpSpec("2025-11-25", "server/tools", "Tool")},
	"tool-schema-invalid":   {mcpSpec("2025-11-25", "basic/index", "JSON Schema Usage")},
	"tool-name":             {mcpSpec("2025-11-25", "server/tools", "Tool Names")},
	"output-schema":         {mcpSpec("2025-11-25", "server/tools", "Output Schema"), mcpSpec("2025-11-25", "server/tools", "Structured Content")},
	"unknown-tool":          {mcpSpec("2025-11-25", "server/tools", "Error Handling")},
	"meta-required":         {mcpSpec("2026-07-28", "basic/index", "_meta")},
	"meta-accepted":         {mcpSpec("2026-07-28", "basic/index", "_meta")},
	"result-type":           {mcpSpec("2026-07-28", "basic/index", "Responses")},
	"modern-removed":        {mcpSpec("2026-07-28", "changelog", "Major changes")},
	"input-required":        {mcpSpec("2026-07-28", "basic/patterns/mrtr", "Server Requirements")},
	"request-state":         {mcpSpec("2026-07-28", "basic/patterns/mrtr", "Client Requirements")},
	"extension-negotiation": {mcpSpec("2026-07-28", "basic/index", "Extensions")},
	"subscription-stream":   {mcpSpec("2026-07-28", "basic/patterns/subscriptions", "Subscriptions")},
	"cache-fields":          {mcpSpec("2026-07-28", "server/utilities/caching", "Caching")},
	"x-mcp-header":          {mcpSpec("2026-07-28", "basic/transports/streamable-http", "Server Behavior for Custom Headers")},
	"transport-headers":     {mcpSpec("2025-11-25", "basic/transports", "Sending Messages to the Server"), mcpSpec("2026-07-28", "basic/transports/streamable-http", "Sending Messages")},
	"error-code":            {jsonRPC("5.1 Error object"), mcpSpec("2025-11-25", "basic/index", "Responses")},
	"notification-id":       {mcpSpec("2025-11-25", "basic/index", "Notifications")},
	"request-without-id":    {mcpSpec("2025-11-25", "basic/index", "Requests")},
	"batch-initialize":      {mcpSpec("2025-03-26", "basic/lifecycle", "Initialization")},
	"request-params":        {mcpSpec("2025-11-25", "basic/index", "Requests"), jsonRPC("4.2 Parameter Structures")},
	"progress-token":        {mcpSpec("2025-11-25", "basic/utilities/progress", "Progress Flow")},
	"cursor":                {mcpSpec("2025-11-25", "server/utilities/pagination", "Pagination Model")},
	"ping-result":           {mcpSpec("2025-11-25", "basic/utilities/ping", "Behavior Requirements")},
	"log-level":             {mcpSpec("2025-11-25", "server/utilities/logging", "Log Levels")},
	"completion-values":     {mcpSpec("2025-11-25", "server/utilities/completion", "Completion Results")},
	"prompt-arguments":      {mcpSpec("2025-11-25", "server/prompts", "Getting a Prompt")},
	"resource-contents":     {mcpSpec("2025-11-25", "server/resources", "Reading Resources")},
	"tool-result-content":   {mcpSpec("2025-11-25", "server/tools", "Tool Result")},
	"routing-header":        {mcpSpec("2026-07-28", "basic/transports/streamable-http", "Standard Request Headers"), mcpSpec("2026-07-28", "basic/transports/streamable-http", "Server Validation")},
	"param-header":          {mcpSpec("2026-07-28", "basic/transports/streamable-http", "Server Behavior for Custom Headers")},
	"pending-request":       {mcpSpec("2025-11-25", "basic/index", "Responses")},
	"late-result":           {mcpSpec("2025-11-25", "basic/utilities/cancellation", "Behavior Requirements")},
	"tool-drift":            {mcpSpec("2025-11-25", "server/tools", "Security Considerations")},
	"deprecated-feature":    {mcpSpec("2026-07-28", "deprecated", "Deprecated features")},
	"schema-construct":      {mcpSpec("2025-11-25", "basic/index", "JSON Schema Usage")},
	"input-schema":          {mcpSpec("2025-11-25", "server/tools", "Tool")},
	"tool-poisoning":        {mcpSpec("2025-11-25", "server/tools", "Security Considerations")},
	"secret-leak":           {mcpSpec("2025-11-25", "basic/security_best_practices", "Security Best Practices")},
}

func init() {
	for _, r := range catalogue {
		if refs, ok := specRefs[r.ID]; ok && r.Doc.Spec == nil {
			r.Doc.Spec = refs
		}
	}
}
