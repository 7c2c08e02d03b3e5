package checks

// What the external tests (package checks_test, which run the rules
// through the engine) read of the package's internals.
var (
	RuleInternalError = ruleInternalError
	RuleToolDrift     = ruleToolDrift
	RuleToolPoisoning = ruleToolPoisoning
	RuleSecretLeak    = ruleSecretLeak
	MCPRevisions      = mcpRevisions
)

// InstructionLabels are the labels of the instruction kinds tool-poisoning
// knows, in order.
func InstructionLabels() []string {
	out := make([]string, len(instructionKinds))
	for i, k := range instructionKinds {
		out[i] = k.label
	}
	return out
}
