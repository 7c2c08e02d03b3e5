package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// floorCounts is what a floor decode found; the harness compares the
// decoders' counts so that none can skip work unnoticed.
type floorCounts struct {
	Envelopes, Requests, Results, Errors, Calls int
}

// message counts one decoded message the same way for every decoder.
func (c *floorCounts) message(method string, hasID bool, callName string, result, failed bool) {
	switch {
	case method != "" && hasID:
		c.Requests++
		if method == "tools/call" && callName != "" {
			c.Calls++
		}
	case result:
		c.Results++
	case failed:
		c.Errors++
	}
}

func (c floorCounts) String() string {
	return fmt.Sprintf("envelopes=%d requests=%d results=%d errors=%d calls=%d",
		c.Envelopes, c.Requests, c.Results, c.Errors, c.Calls)
}

// floorDecoders are the plain decoders; floor_v2.go adds "v2" when built
// with GOEXPERIMENT=jsonv2.
var floorDecoders = map[string]func(io.Reader) (floorCounts, error){
	"v1": floorV1,
}

func runFloor(which, path string, out io.Writer) error {
	decode, ok := floorDecoders[which]
	if !ok {
		return fmt.Errorf("floor %s is not in this build (v2 needs GOEXPERIMENT=jsonv2)", which)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	counts, err := decode(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, counts)
	return err
}

// v1Envelope is an mcpsnoop envelope and the members of its message a
// checker must at least look at, into small structs.
type v1Envelope struct {
	SessionID   string     `json:"session_id"`
	ServerLabel string     `json:"server_label"`
	Seq         int64      `json:"seq"`
	TS          string     `json:"ts"`
	Direction   string     `json:"direction"`
	Transport   string     `json:"transport"`
	Text        string     `json:"text"`
	Raw         *v1Message `json:"raw"`
}

type v1Message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params *struct {
		Name string `json:"name"`
	} `json:"params"`
	Result v1Present `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// v1Present records that a member exists without copying its value.
type v1Present bool

func (p *v1Present) UnmarshalJSON([]byte) error { *p = true; return nil }

func floorV1(r io.Reader) (floorCounts, error) {
	dec := json.NewDecoder(r)
	var c floorCounts
	for {
		var env v1Envelope
		if err := dec.Decode(&env); err != nil {
			if errors.Is(err, io.EOF) {
				return c, nil
			}
			return c, err
		}
		c.Envelopes++
		if m := env.Raw; m != nil {
			name := ""
			if m.Params != nil {
				name = m.Params.Name
			}
			c.message(m.Method, m.ID != nil, name, bool(m.Result), m.Error != nil)
		}
	}
}
