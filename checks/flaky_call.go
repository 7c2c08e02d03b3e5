package checks

// ruleFlakyCall has no checker: it compares captures, so the engine
// reports it once every capture of the run is read (engine/usage.go).
var ruleFlakyCall = &Rule{
	ID:       "flaky-call",
	Signal:   SignalFlaky,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A tool call that succeeded in one capture and failed in another with identical arguments",
		Why: `A tool that fails one run in four stays invisible when every capture is judged on
its own: each run's tool-error is a finding of that run, and the run that passed
shows nothing. Across the captures of one check, the same tool called with the
same arguments (compared in canonical form: member order and layout do not
matter) should give the same outcome; when it succeeded in one capture and failed
in another (isError, a JSON-RPC error or an HTTP error), the server is flaky or
depends on state the client does not control.

The finding is placed at the failing call and names the capture where the same
call succeeded. It needs two or more captures; a run remembers a bounded number
of distinct argument sets (the report says when the bound was reached).`,
		Fix: `Find what differs between the runs (timeouts, rate limits, shared state,
ordering) and make the tool deterministic, or retry it in the client.`,
		Bad:   `capture A: tools/call run_query {"sql":"select 1"} → result; capture B: the same call → isError: true`,
		Good:  `the same call answers with a result in every capture`,
		Since: "0.3.0",
	},
	CountsJudged: true, // the engine counts the argument sets it compared
	New:          func() Checker { return Base{} },
}
