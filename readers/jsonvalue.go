package readers

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// A small helper on JSON values that several formats read.

// member is the value of an object's member, nil when absent.
func member(obj []byte, name string) []byte {
	var v []byte
	if obj != nil {
		_ = jsonscan.EachMember(obj, func(k, val []byte) {
			if string(k) == name {
				v = val
			}
		})
	}
	return v
}
