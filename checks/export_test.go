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
