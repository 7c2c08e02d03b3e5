// Package layout holds no code: its test keeps the house's rooms apart
// (which package may import which, what checks/ and session/ may hold), so
// that a change that blurs them fails where it is made.
package layout
