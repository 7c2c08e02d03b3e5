package engine

import (
	"time"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/spill"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// The encoding of a session result in the result spill (store.go). Every
// field of SessionResult, Finding and what they point to is written here;
// codec_test.go sets every field of each and fails when one does not read
// back, so a field added to them cannot be forgotten.

// encodeSession appends s.
func encodeSession(b []byte, s *result.SessionResult) []byte {
	e := spill.NewEncoder(b)
	e.String(s.ID)
	e.String(s.Label)
	e.Int(s.Ordinal)
	e.String(s.File)
	e.Int(s.FirstLine)
	e.String(s.Revision)
	e.String(s.Transport)
	e.Varint(s.Frames)
	e.Varint(s.MissingFrames)
	e.Len(len(s.Findings))
	for _, f := range s.Findings {
		encodeFinding(&e, f, s)
	}
	e.Len(len(s.Assertions))
	for _, a := range s.Assertions {
		e.String(a.Name)
		e.String(a.Arg)
		e.Bool(a.Passed)
		e.String(a.Message)
	}
	if e.Present(s.Drift != nil) {
		encodeDriftReport(&e, s.Drift)
	}
	if e.Present(s.Calls != nil) {
		encodeCalls(&e, s.Calls)
	}
	e.Len(len(s.Unjudged))
	for _, w := range s.Unjudged {
		e.Varint(int64(w))
	}
	return e.Bytes()
}

// decodeSession reads a session back; its strings share data.
func decodeSession(data string) (*result.SessionResult, error) {
	d := spill.NewDecoder(data)
	s := &result.SessionResult{}
	s.ID = d.String()
	s.Label = d.String()
	s.Ordinal = d.Int()
	s.File = d.String()
	s.FirstLine = d.Int()
	s.Revision = d.String()
	s.Transport = d.String()
	s.Frames = d.Varint()
	s.MissingFrames = d.Varint()
	if n := d.Len(); n > 0 {
		backing := make([]result.Finding, n)
		s.Findings = make([]*result.Finding, n)
		for i := range s.Findings {
			s.Findings[i] = &backing[i]
			decodeFinding(&d, &backing[i], s)
		}
	}
	if n := d.Len(); n > 0 {
		s.Assertions = make([]result.Assertion, n)
		for i := range s.Assertions {
			a := &s.Assertions[i]
			a.Name = d.String()
			a.Arg = d.String()
			a.Passed = d.Bool()
			a.Message = d.String()
		}
	}
	if d.Present() {
		s.Drift = decodeDriftReport(&d)
	}
	if d.Present() {
		s.Calls = decodeCalls(&d)
	}
	if n := d.Len(); n > 0 {
		s.Unjudged = make([]uint64, n)
		for i := range s.Unjudged {
			s.Unjudged[i] = uint64(d.Varint())
		}
	}
	if d.Err() != nil || d.More() {
		return nil, spill.ErrDamaged
	}
	return s, nil
}

func encodeFinding(e *spill.Encoder, f *result.Finding, s *result.SessionResult) {
	str := func(v string) { e.Common(v, s.ID, s.File, s.Label) }
	str(f.Rule)
	e.Byte(byte(f.Signal))
	e.Byte(byte(f.Severity))
	str(f.Message)
	str(f.File)
	e.Int(f.Line)
	str(f.Session)
	str(f.Label)
	e.Varint(f.Seq)
	str(f.Subject)
	e.Len(len(f.Related))
	for _, l := range f.Related {
		str(l.File)
		e.Int(l.Line)
		str(l.Message)
	}
	str(f.Fingerprint)
	e.Bool(f.Gated)
	e.Bool(f.Existing)
	if e.Present(f.Suppressed != nil) {
		x := f.Suppressed
		e.String(x.Fingerprint)
		e.String(x.Reason)
		e.String(x.Expires)
		e.String(x.Rule)
		e.String(x.Label)
		e.String(x.Subject)
		e.String(x.Message)
		str(x.File)
		e.Int(x.Line)
	}
	e.Int(f.Also)
	if e.Present(f.Drift != nil) {
		encodeToolChange(e, f.Drift)
	}
	if e.Present(f.CausedBy != nil) {
		c := f.CausedBy
		str(c.Rule)
		e.String(c.What)
		str(c.File)
		e.Int(c.Line)
	}
	if e.Present(f.Exchange != nil) {
		x := f.Exchange
		e.Byte(byte(x.From))
		e.String(x.Method)
		e.String(x.Name)
		e.String(x.ID)
		e.Int(x.Line)
		e.Time(x.Sent)
		e.String(x.Answer)
		e.Time(x.Answered)
		e.String(x.Note)
	}
}

func decodeFinding(d *spill.Decoder[string], f *result.Finding, s *result.SessionResult) {
	str := func() string { return d.Common(s.ID, s.File, s.Label) }
	f.Rule = str()
	f.Signal = checks.Signal(d.Byte())
	f.Severity = checks.Severity(d.Byte())
	f.Message = str()
	f.File = str()
	f.Line = d.Int()
	f.Session = str()
	f.Label = str()
	f.Seq = d.Varint()
	f.Subject = str()
	if n := d.Len(); n > 0 {
		f.Related = make([]result.Location, n)
		for i := range f.Related {
			l := &f.Related[i]
			l.File = str()
			l.Line = d.Int()
			l.Message = str()
		}
	}
	f.Fingerprint = str()
	f.Gated = d.Bool()
	f.Existing = d.Bool()
	if d.Present() {
		x := &suppress.Suppression{}
		x.Fingerprint = d.String()
		x.Reason = d.String()
		x.Expires = d.String()
		x.Rule = d.String()
		x.Label = d.String()
		x.Subject = d.String()
		x.Message = d.String()
		x.File = str()
		x.Line = d.Int()
		f.Suppressed = x
	}
	f.Also = d.Int()
	if d.Present() {
		f.Drift = &baseline.ToolChange{}
		decodeToolChange(d, f.Drift)
	}
	if d.Present() {
		c := &result.Cause{}
		c.Rule = str()
		c.What = d.String()
		c.File = str()
		c.Line = d.Int()
		f.CausedBy = c
	}
	if d.Present() {
		x := &result.Exchange{}
		x.From = session.Direction(d.Byte())
		x.Method = d.String()
		x.Name = d.String()
		x.ID = d.String()
		x.Line = d.Int()
		x.Sent = d.Time()
		x.Answer = d.String()
		x.Answered = d.Time()
		x.Note = d.String()
		f.Exchange = x
	}
}

func encodeDriftReport(e *spill.Encoder, r *baseline.Report) {
	e.String(r.Label)
	e.String(string(r.Status))
	e.String(r.Path)
	e.String(r.Format)
	for _, p := range []*baseline.Provenance{r.Recorded, r.Accepted} {
		if e.Present(p != nil) {
			e.String(p.Reason)
			e.String(p.Time)
			e.String(p.Capture)
			e.String(p.Session)
		}
	}
	if e.Present(r.RecordedBy != nil) {
		e.String(r.RecordedBy.File)
		e.String(r.RecordedBy.Session)
		e.Int(r.RecordedBy.Line)
	}
	e.String(r.NotKept)
	e.Len(len(r.NotCompared))
	for _, f := range r.NotCompared {
		e.String(string(f))
	}
	e.String(r.Problem)
	e.Len(len(r.Changes))
	for i := range r.Changes {
		encodeToolChange(e, &r.Changes[i])
	}
}

func decodeDriftReport(d *spill.Decoder[string]) *baseline.Report {
	r := &baseline.Report{}
	r.Label = d.String()
	r.Status = baseline.Status(d.String())
	r.Path = d.String()
	r.Format = d.String()
	for _, p := range []**baseline.Provenance{&r.Recorded, &r.Accepted} {
		if d.Present() {
			*p = &baseline.Provenance{Reason: d.String(), Time: d.String(), Capture: d.String(), Session: d.String()}
		}
	}
	if d.Present() {
		r.RecordedBy = &baseline.Origin{File: d.String(), Session: d.String(), Line: d.Int()}
	}
	r.NotKept = d.String()
	if n := d.Len(); n > 0 {
		r.NotCompared = make([]baseline.Field, n)
		for i := range r.NotCompared {
			r.NotCompared[i] = baseline.Field(d.String())
		}
	}
	r.Problem = d.String()
	if n := d.Len(); n > 0 {
		r.Changes = make([]baseline.ToolChange, n)
		for i := range r.Changes {
			decodeToolChange(d, &r.Changes[i])
		}
	}
	return r
}

func encodeToolChange(e *spill.Encoder, c *baseline.ToolChange) {
	e.String(c.Tool)
	e.String(string(c.Change))
	e.Byte(byte(c.Tier))
	e.Len(len(c.Fields))
	for _, f := range c.Fields {
		e.String(string(f.Field))
		e.Byte(byte(f.Tier))
		e.Len(len(f.Diffs))
		for _, x := range f.Diffs {
			e.String(x.Pointer)
			e.String(x.Old)
			e.String(x.New)
			e.Byte(byte(x.Tier))
			e.String(x.Reason)
		}
	}
}

func decodeToolChange(d *spill.Decoder[string], c *baseline.ToolChange) {
	c.Tool = d.String()
	c.Change = baseline.ChangeKind(d.String())
	c.Tier = baseline.Tier(d.Byte())
	if n := d.Len(); n > 0 {
		c.Fields = make([]baseline.FieldChange, n)
		for i := range c.Fields {
			f := &c.Fields[i]
			f.Field = baseline.Field(d.String())
			f.Tier = baseline.Tier(d.Byte())
			if m := d.Len(); m > 0 {
				f.Diffs = make([]baseline.Diff, m)
				for j := range f.Diffs {
					x := &f.Diffs[j]
					x.Pointer = d.String()
					x.Old = d.String()
					x.New = d.String()
					x.Tier = baseline.Tier(d.Byte())
					x.Reason = d.String()
				}
			}
		}
	}
}

func encodeCalls(e *spill.Encoder, c *result.Calls) {
	e.Varint(c.Total)
	e.Varint(c.Failed)
	e.Varint(c.Unanswered)
	e.Varint(c.Cancelled)
	e.Varint(c.Progress)
	e.Time(c.First)
	e.Time(c.Last)
	e.Len(len(c.Drawn))
	for i := range c.Drawn {
		x := &c.Drawn[i]
		e.String(x.Method)
		e.String(x.Name)
		e.String(x.ID)
		e.String(x.From)
		e.Int(x.Line)
		e.Time(x.Start)
		e.Varint(int64(x.Duration))
		e.String(x.Outcome)
		e.Bool(x.Failed)
		e.Bool(x.Cancelled)
		e.Bool(x.Answered)
		e.Int(x.AnswerLine)
		e.Int(x.Progress)
		e.String(x.Request)
		e.String(x.Answer)
		e.Bool(x.Clipped)
	}
	e.Varint(c.NotDrawn)
	e.Len(len(c.Tools))
	for _, t := range c.Tools {
		e.String(t.Name)
		e.Varint(t.Calls)
		e.Varint(t.Errors)
		e.Varint(t.Timed)
		e.Varint(int64(t.P50))
		e.Varint(int64(t.P95))
		e.Varint(int64(t.Max))
	}
}

func decodeCalls(d *spill.Decoder[string]) *result.Calls {
	c := &result.Calls{}
	c.Total = d.Varint()
	c.Failed = d.Varint()
	c.Unanswered = d.Varint()
	c.Cancelled = d.Varint()
	c.Progress = d.Varint()
	c.First = d.Time()
	c.Last = d.Time()
	if n := d.Len(); n > 0 && d.Err() == nil {
		c.Drawn = make([]result.Call, n)
		for i := range c.Drawn {
			x := &c.Drawn[i]
			x.Method = d.String()
			x.Name = d.String()
			x.ID = d.String()
			x.From = d.String()
			x.Line = d.Int()
			x.Start = d.Time()
			x.Duration = time.Duration(d.Varint())
			x.Outcome = d.String()
			x.Failed = d.Bool()
			x.Cancelled = d.Bool()
			x.Answered = d.Bool()
			x.AnswerLine = d.Int()
			x.Progress = d.Int()
			x.Request = d.String()
			x.Answer = d.String()
			x.Clipped = d.Bool()
		}
	}
	c.NotDrawn = d.Varint()
	if n := d.Len(); n > 0 && d.Err() == nil {
		c.Tools = make([]result.ToolStats, n)
		for i := range c.Tools {
			t := &c.Tools[i]
			t.Name = d.String()
			t.Calls = d.Varint()
			t.Errors = d.Varint()
			t.Timed = d.Varint()
			t.P50 = time.Duration(d.Varint())
			t.P95 = time.Duration(d.Varint())
			t.Max = time.Duration(d.Varint())
		}
	}
	return c
}
