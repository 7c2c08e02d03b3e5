package usage

import "github.com/mcpcheck/mcpcheck/internal/jsonscan"

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// mix is a finaliser (splitmix64): it spreads a hash before it is combined.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// maxHashDepth is how deep hashArgs follows nesting; below it a value
// hashes as its bytes.
const maxHashDepth = 64

// hashArgs hashes tool arguments in canonical form without allocating:
// layout is ignored and an object's members hash the same in any order (a
// commutative sum of each member's hash). Numbers and strings hash as
// written. Absent or null arguments hash as {}.
func hashArgs(args []byte) argKey {
	i := jsonscan.SkipSpace(args, 0)
	if i >= len(args) || string(args[i:]) == "null" {
		args, i = emptyObject, 0
	}
	h, _ := hashValue(args, i, 0)
	return argKey(h)
}

var emptyObject = []byte("{}")

func hashObjectEmpty() uint64 { return mix(fnv(fnvOffset, []byte{'{'})) }

// hashValue hashes the value at b[i:] and returns where it ends.
func hashValue(b []byte, i, depth int) (uint64, int) {
	i = jsonscan.SkipSpace(b, i)
	if i >= len(b) {
		return fnvOffset, i
	}
	if depth >= maxHashDepth || (b[i] != '{' && b[i] != '[') {
		end, err := jsonscan.SkipValue(b, i, 0)
		if err != nil {
			end = len(b)
		}
		return mix(fnv(fnvOffset, b[i:end])), end
	}
	open := b[i]
	closer := byte('}')
	if open == '[' {
		closer = ']'
	}
	var acc uint64
	seq := uint64(fnvOffset)
	i++
	for n := 0; ; n++ {
		i = jsonscan.SkipSpace(b, i)
		if i >= len(b) {
			break
		}
		if b[i] == closer {
			i++
			break
		}
		if b[i] == ',' {
			i++
			continue
		}
		if open == '{' {
			end, err := jsonscan.SkipString(b, i)
			if err != nil {
				return mix(fnv(fnvOffset, b[i:])), len(b)
			}
			name := mix(fnv(fnvOffset, b[i:end]))
			i = jsonscan.SkipSpace(b, end)
			if i < len(b) && b[i] == ':' {
				i++
			}
			v, e := hashValue(b, i, depth+1)
			acc += mix(name ^ (v * fnvPrime)) // order of members does not matter
			i = e
			continue
		}
		v, e := hashValue(b, i, depth+1)
		seq = (seq ^ v) * fnvPrime // order of elements does
		i = e
	}
	if open == '{' {
		return mix(acc ^ hashObjectEmpty()), i
	}
	return mix(seq ^ '['), i
}
