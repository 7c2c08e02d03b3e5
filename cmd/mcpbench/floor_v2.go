//go:build goexperiment.jsonv2

package main

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"io"
)

func init() { floorDecoders["v2"] = floorV2 }

// v2Envelope is v1Envelope for encoding/json/v2.
type v2Envelope struct {
	SessionID   string     `json:"session_id"`
	ServerLabel string     `json:"server_label"`
	Seq         int64      `json:"seq"`
	TS          string     `json:"ts"`
	Direction   string     `json:"direction"`
	Transport   string     `json:"transport"`
	Text        string     `json:"text"`
	Raw         *v2Message `json:"raw"`
}

type v2Message struct {
	ID     jsontext.Value `json:"id"`
	Method string         `json:"method"`
	Params *struct {
		Name string `json:"name"`
	} `json:"params"`
	Result v2Present `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// v2Present records that a member exists and skips its value unread.
type v2Present bool

func (p *v2Present) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*p = true
	return dec.SkipValue()
}

func floorV2(r io.Reader) (floorCounts, error) {
	dec := jsontext.NewDecoder(r)
	var c floorCounts
	for {
		var env v2Envelope
		if err := json.UnmarshalDecode(dec, &env); err != nil {
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
