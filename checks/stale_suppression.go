package checks

// ruleStaleSuppression has no checker: the engine reports it once every
// session of the run is decided (engine/suppress.go).
var ruleStaleSuppression = &Rule{
	ID:       "stale-suppression",
	Signal:   SignalSuppression,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A suppressions entry that matched no finding in the run",
		Why: `An entry of the suppressions file accepts one finding by its fingerprint. When
no finding of the run has that fingerprint any more, the fault was fixed (or the
traffic changed), and the entry only waits to hide the same fault silently should
it come back.

The finding is placed at the entry in the suppressions file, the line to delete.
An entry whose server label no session of the run has, or whose rule --disable
turned off, is not judged: the run could not have shown its finding.`,
		Fix: `Delete the entry from the suppressions file (or check the captures the entry
was written for).`,
		Bad:   `{"fingerprint":"0f3a…","reason":"upstream bug #12"} while no finding has fingerprint 0f3a…`,
		Good:  `{"fingerprint":"0f3a…","reason":"upstream bug #12"} while the tool-error it names is still reported`,
		Since: "0.2.0",
	},
	CountsJudged: true, // the engine counts the suppressions entries it judged
	New:          func() Checker { return Base{} },
}
