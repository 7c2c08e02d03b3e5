package baseline

// Status is how a session's tools met their baseline.
type Status string

const (
	// StatusCompared: the session's listings were compared with a
	// baseline (one that existed before the run, or, with RecordedBy set,
	// one an earlier session of this run recorded).
	StatusCompared Status = "compared"
	// StatusRecorded: the session's first listing became the baseline in
	// this run; nothing was verified (later listings of the session were
	// compared with it).
	StatusRecorded Status = "recorded"
	// StatusUnavailable: no baseline could be used; Problem says why.
	StatusUnavailable Status = "unavailable"
)

// Report is one session's drift: what it was compared with and what
// changed. Reporters render it; it is computed once, before them.
type Report struct {
	Label  string
	Status Status
	Path   string // the baseline file; "" without a directory
	Format string // "mcpcheck baseline version 1", "mcpsnoop baseline version 2"
	// Recorded and Accepted are the baseline's provenance.
	Recorded, Accepted *Provenance
	// RecordedBy is the earlier session of this run whose listing is the
	// baseline, when the baseline was not on disk before the run.
	RecordedBy *Origin
	// NotKept says why a baseline recorded in this run is not on disk.
	NotKept string
	// NotCompared are fields the baseline does not record (an mcpsnoop
	// version 1 file): they were not compared.
	NotCompared []Field
	// Problem says why no baseline could be used (StatusUnavailable).
	Problem string
	// Changes are the tools that differ, each once per session.
	Changes []ToolChange
}

// Tiers counts the changes per tier.
func (r *Report) Tiers() (breaking, review, info int) {
	for _, c := range r.Changes {
		switch c.Tier {
		case TierBreaking:
			breaking++
		case TierReview:
			review++
		case TierInfo:
			info++
		}
	}
	return
}

// Kinds counts the changes per kind.
func (r *Report) Kinds() (added, removed, changed int) {
	for _, c := range r.Changes {
		switch c.Change {
		case Added:
			added++
		case Removed:
			removed++
		default:
			changed++
		}
	}
	return
}
