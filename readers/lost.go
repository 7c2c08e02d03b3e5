package readers

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// What a part of a capture that was not read loses, for session.Damage's
// Lost (spec §2.1, fail closed): the formats share these.

// lostToBreak is what a compressed capture that breaks off loses.
func lostToBreak(gz gzipError) string {
	return "the capture could not be read to its end: the compressed stream breaks off (" + gz.err.Error() + "); what followed is unknown"
}

// tooLargeLost is what a piece (what) larger than max that is not read at
// all loses.
func tooLargeLost(what string, max int) string {
	return fmt.Sprintf("%s of more than %s, the most mcpcheck reads, was not read", what, sizeText(max))
}

// unreadRecord is what a record (what: "HAR entry", "event") nested past
// the depth limit loses; next is the line reading resumed on, 0 when no
// later record was found, -1 when the document went on regardless.
func unreadRecord(what string, next int) string {
	lost := fmt.Sprintf("1 %s could not be read: it nests deeper than the %d levels mcpcheck reads", what, jsonscan.MaxDepth)
	switch {
	case next > 0:
		return fmt.Sprintf("%s; reading resumed at the next one, line %d", lost, next)
	case next == 0:
		return lost + "; no later one was found, so the rest of the document was not read"
	}
	return lost
}

// brokenDocument is what a document (what: "HAR", "LogRocket events")
// that breaks off loses.
func brokenDocument(what string, se *streamError) string {
	return fmt.Sprintf("the capture could not be read to its end: the %s breaks off at line %d (%s); what followed is unknown", what, se.line, se.msg)
}

// The problems of a frame past a limit (spec §2.1, fail closed).
var tooDeepProblem = fmt.Sprintf("the frame nests deeper than the %d levels mcpcheck reads: what lies deeper was left out, the rest was judged", jsonscan.MaxDepth)

func tooLargeProblem(max int) string { return recordTooLargeProblem("envelope", max) }

// recordTooLargeProblem is the problem of a frame of a record (what: an
// "envelope", a "HAR entry", an "event") read only as far as its first max
// bytes.
func recordTooLargeProblem(what string, max int) string {
	return fmt.Sprintf("the %s is larger than the %s mcpcheck reads: what follows its first %[2]s was left out, the rest was judged", what, sizeText(max))
}

// tooDeep reports whether data, a whole JSON value, is valid but nested
// past jsonscan.MaxDepth.
func tooDeep(data []byte) bool {
	_, err := jsonscan.SkipValue(data, 0, 0)
	return jsonscan.TooDeep(err)
}
