//go:build !race

// Package racedetect says whether the race detector is on, so that tests
// that hold memory or allocations to a budget can skip under it: the race
// runtime multiplies both.
package racedetect

// Enabled is true when the binary was built with the race detector.
const Enabled = false
