package readers

// All returns the capture formats in detection order: Read asks each in
// turn whether it recognises a capture's head, and the first that does
// reads it. The formats recognise disjoint heads (a test holds every
// fixture to exactly one), so the order decides only which are named first
// in messages ("formats tried: …") and in --input-format's list. It is the
// order the formats were detected in before they had a list of their own
// (their files' alphabetical order, with mcpsnoop registered from
// format.go); docs/formats.md lists them differently.
//
// A new format is one file holding its type, plus a line here.
func All() []Format {
	return []Format{
		claudeDesktop{},
		mcpsnoop{},
		har{},
		jsonrpcFormat{},
		logRocket{},
		mcpRewind{},
	}
}
