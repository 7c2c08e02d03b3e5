package checks

import (
	"fmt"
	"strings"
)

// catalogue is every rule, in the order reports list them: by signal, then
// as the specification names them.
var catalogue = []*Rule{
	ruleJSONRPCError,
	ruleToolError,
	ruleHTTPError,
	ruleTaskFailed,
	ruleInternalError,
	ruleInvalidFrame,
	ruleInvalidEnvelope,
	ruleUnreadCapture,
	ruleJSONRPCVersion,
	ruleRequestID,
	ruleResponseShape,
	ruleIDReuse,
	ruleUnmatchedResponse,
	ruleDuplicateResponse,
	ruleLifecycle,
	ruleCapability,
	ruleProgress,
	ruleCancel,
	ruleToolSchemaRoot,
	ruleToolSchemaInvalid,
	ruleToolName,
	ruleOutputSchema,
	ruleUnknownTool,
	ruleMetaRequired,
	ruleMetaAccepted,
	ruleResultType,
	ruleModernRemoved,
	ruleInputRequired,
	ruleRequestState,
	ruleExtensionNegotiation,
	ruleSubscriptionStream,
	ruleCacheFields,
	ruleXMCPHeader,
	ruleTransportHeaders,
	ruleErrorCode,
	ruleNotificationID,
	ruleRequestWithoutID,
	ruleBatchInitialize,
	ruleRequestParams,
	ruleProgressToken,
	ruleCursor,
	rulePingResult,
	ruleLogLevel,
	ruleCompletionValues,
	rulePromptArguments,
	ruleResourceContents,
	ruleToolResultContent,
	ruleRoutingHeader,
	ruleParamHeader,
	rulePendingRequest,
	ruleLateResult,
	ruleToolDrift,
	ruleBaseline,
	ruleDeprecatedFeature,
	ruleMissingFrames,
	ruleTruncatedCapture,
	ruleSchemaConstruct,
	ruleInputSchema,
	ruleToolPoisoning,
	ruleSecretLeak,
	ruleStaleSuppression,
	ruleExpiredSuppression,
	ruleFlakyCall,
}

// All returns the rule catalogue: the one list that `mcpcheck rules`,
// `explain`, docs/rules.md, SARIF metadata and --fail-on all read.
func All() []*Rule {
	return append([]*Rule(nil), catalogue...)
}

// MarkdownTable renders the catalogue as the rule table of docs/rules.md and `rules --format markdown`.
func MarkdownTable(rules []*Rule) string {
	gated := map[Signal]bool{}
	for _, name := range strings.Split(DefaultGate, ",") {
		if sig, ok := ParseSignal(name); ok {
			gated[sig] = true
		}
	}
	var b strings.Builder
	b.WriteString("| rule | signal | fails the default gate | severity | revisions | since | what it finds |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rules {
		inGate := "no"
		if gated[r.Signal] {
			inGate = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", r.ID, r.Signal, inGate, r.Severity, r.Revisions, r.Doc.Since,
			strings.ReplaceAll(r.Doc.Summary, "|", `\|`))
	}
	return b.String()
}
