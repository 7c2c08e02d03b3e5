package checks

// ruleInternalError has no checker: the engine reports it when a rule panics.
var ruleInternalError = &Rule{
	ID:       "internal-error",
	Signal:   SignalError,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A rule failed while checking the capture",
		Why: `mcpcheck runs every rule independently. When one rule fails on some input (a
bug in mcpcheck), the failure is recovered, reported as this finding naming the
rule, and the other rules still run. The failed rule's findings for that
session are incomplete, so the check fails rather than pass silently.`,
		Fix: `Report the finding and the frame it names to the mcpcheck maintainers;
meanwhile --disable the named rule if you must.`,
		Bad:   `rule tool-schema-invalid failed: runtime error: index out of range`,
		Good:  `no internal-error findings`,
		Since: "0.1.0",
	},
	New: func() Checker { return Base{} }, // the driver reports it
}
