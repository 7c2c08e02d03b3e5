package racedetect

// Skipper is the part of testing.TB that SkipUnderRace needs.
type Skipper interface {
	Helper()
	Skip(args ...any)
}

// SkipUnderRace skips a test whose assertion is a memory or allocation
// budget: the race runtime's shadow memory and instrumentation make such
// budgets meaningless, though the code under test is the same.
func SkipUnderRace(t Skipper) {
	t.Helper()
	if Enabled {
		t.Skip("memory and allocation budgets do not hold under the race detector (its shadow memory and instrumentation multiply both); run without -race to check this budget")
	}
}
