package jsonscan

// Member returns the raw value of the member called name of the JSON
// object obj, or nil when obj is not an object or has no such member. It
// is the one lookup of a member by name: the reader's decode of a message
// (a switch over EachMember), the MCP views and the rules all read an
// object this way.
//
// A name used twice has one answer everywhere: the last value wins, as
// encoding/json and most receivers keep it. Such a message is Invalid
// (EachMemberStrict finds the name), but correlation still follows what it
// otherwise reads as, and the rules judge that same reading: an isError
// written false then true is an error result.
func Member(obj []byte, name string) []byte {
	if FirstByte(obj) != '{' {
		return nil
	}
	var out []byte
	_ = EachMember(obj, func(n, v []byte) {
		if string(n) == name {
			out = v // the last one wins
		}
	})
	return out
}
