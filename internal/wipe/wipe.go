// Package wipe overwrites buffers that are about to be reused, under the
// small test buffer sizes, so that bytes anything kept past their frame
// show as garbage in tests instead of reading on intact.
package wipe

// Bytes overwrites b with '#'.
func Bytes(b []byte) {
	for i := range b {
		b[i] = '#'
	}
}
