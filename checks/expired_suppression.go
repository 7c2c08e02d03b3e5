package checks

// ruleExpiredSuppression has no checker: the engine reports it once every
// session of the run is decided (engine/suppress.go).
var ruleExpiredSuppression = &Rule{
	ID:       "expired-suppression",
	Signal:   SignalSuppression,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A suppressions entry past its expiry date, which no longer suppresses",
		Why: `An entry may say how long a finding is accepted ("expires": "2026-12-31"): the
time a team gave itself to fix it. From the end of that day (UTC) the entry no
longer suppresses, so its finding is reported, and fails the gate, on its own
again; this finding says why, once per entry, at the entry in the suppressions
file.`,
		Fix: `Fix what the finding reports and delete the entry, or renew it with a new
reason and date (mcpcheck suppress FINGERPRINT --reason TEXT --expires DATE).`,
		Bad:   `{"fingerprint":"0f3a…","reason":"fixed in 2.1","expires":"2026-06-30"} checked on 2026-07-01`,
		Good:  `{"fingerprint":"0f3a…","reason":"fixed in 2.1","expires":"2026-06-30"} checked on 2026-06-30`,
		Since: "0.2.0",
	},
	CountsJudged: true, // the engine counts the suppressions entries it judged
	New:          func() Checker { return Base{} },
}
