package mcp

// ToolSet is a server's tools as one complete listing showed them, in
// listing order. Its tools own their bytes (Tool.Clone), so it can be kept,
// compared with a baseline, or written.
type ToolSet struct {
	Tools  []Tool
	byName map[string]int
}

// Add appends a copy of t; a second tool of the same name is kept in the
// list but Lookup finds the first.
func (s *ToolSet) Add(t Tool) {
	if s.byName == nil {
		s.byName = map[string]int{}
	}
	if _, dup := s.byName[t.Name]; !dup {
		s.byName[t.Name] = len(s.Tools)
	}
	s.Tools = append(s.Tools, t.Clone())
}

// Lookup returns the tool called name.
func (s *ToolSet) Lookup(name string) (*Tool, bool) {
	if s == nil {
		return nil, false
	}
	i, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	return &s.Tools[i], true
}

// Len is the number of tools.
func (s *ToolSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Tools)
}
