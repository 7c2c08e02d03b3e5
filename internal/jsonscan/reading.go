package jsonscan

// A value the caller decodes anyway need not be walked twice: once by the
// walk of the object around it, skipping it, and again by its decoder. With
// a ValueReader the decoder's walk is the only one (an envelope's raw
// message is read while the envelope is).

// ValueReader reads the value at b[i] in place of a walk skipping it and
// returns the offset after it, or the syntax error SkipValue(b, i, depth)
// would return. depth is what SkipValue is given there: the nesting of the
// object holding the value.
type ValueReader func(b []byte, i, depth int) (int, error)

// EachMemberReading is EachMemberStrict of b's own members (not deep), with
// the value of every member named name read by read instead of skipped.
// fn still sees that member's value.
func EachMemberReading(b []byte, name string, read ValueReader, fn func(name, val []byte)) (*Duplicate, error) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, &scanError{i, "not a JSON object"}
	}
	d := dups{dupAt: -1}
	end, err := walkObject(b, i, 1, &d, fn, func(member []byte, at int) (int, error) {
		if string(member) == name {
			return read(b, at, 1)
		}
		return skipValue(b, at, 1, nil)
	})
	return wholeObject(b, i, end, err, &d)
}

// ObjectAt is EachMemberStrict for the object at b[i] (a '{'), nested depth
// deep as SkipValue counts (a ValueReader passes its depth+1), where b goes
// on after the object: it returns the offset after the object. Its errors
// and duplicates are those of EachMemberStrict on the object alone.
func ObjectAt(b []byte, i, depth int, deep bool, fn func(name, val []byte)) (end int, dup *Duplicate, err error) {
	if depth > MaxDepth {
		return i, nil, &scanError{i, tooDeep}
	}
	d := dups{deep: deep, dupAt: -1}
	end, err = walkObject(b, i, depth, &d, fn, nil)
	if err != nil || d.dupAt < 0 {
		return end, nil, err
	}
	return end, &Duplicate{Name: d.dupName, In: holder(b, i, d.dupAt, "")}, nil
}

// ObjectAtNested is ObjectAt whose one walk also reads the members of some
// members' object values: a decoder that would otherwise walk those values
// again (a message's params and result) sees them here. open is asked
// before each member's object value is walked; when it says yes, member
// sees that object's own members, as EachMember gives them. The syntax
// errors and duplicates found are ObjectAt's. (Two funcs, not an interface:
// a method called through an interface makes its receiver escape.)
func ObjectAtNested(b []byte, i, depth int, deep bool, fn func(name, val []byte), open func(member []byte) bool, member func(name, val []byte)) (end int, dup *Duplicate, err error) {
	if depth > MaxDepth {
		return i, nil, &scanError{i, tooDeep}
	}
	d := dups{deep: deep, dupAt: -1}
	inner := &d // for the members' values, as walkObject has it
	if !deep {
		inner = nil
	}
	end, err = walkObject(b, i, depth, &d, fn, func(name []byte, at int) (int, error) {
		if at < len(b) && b[at] == '{' && open(name) {
			if depth+1 > MaxDepth {
				return at, &scanError{at, tooDeep}
			}
			return walkObject(b, at, depth+1, inner, member, nil)
		}
		return skipValue(b, at, depth, inner)
	})
	if err != nil || d.dupAt < 0 {
		return end, nil, err
	}
	return end, &Duplicate{Name: d.dupName, In: holder(b, i, d.dupAt, "")}, nil
}
