package session

// What the external tests (package session_test, which read captures
// through package readers) see of the internals.

const MaxHeldProbes = maxHeldProbes

// LivePipelines counts pipelines whose goroutine has not ended.
func LivePipelines() int32 { return livePipelines.Load() }

func Overlaps(h Handler, m PipelineMode) bool { return overlaps(h, m) }

// HoldsOpenMaps reports whether s still holds its maps of open calls.
func HoldsOpenMaps(s *Session) bool { return s.open != nil || s.openByID != nil }

// OpenOrderLen is how many calls s keeps in its oldest-first list.
func OpenOrderLen(s *Session) int { return len(s.openOrder) }

// OpenLen is how many calls s follows as open.
func OpenLen(s *Session) int { return len(s.open) }
