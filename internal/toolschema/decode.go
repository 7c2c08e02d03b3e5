package toolschema

import (
	"encoding/json"
	"errors"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// decode turns raw JSON into the values the validator reads (objects as
// map[string]any, arrays as []any, numbers as json.Number so large integers
// keep their precision), like jsonschema.UnmarshalJSON but straight from
// the bytes: arguments and results are decoded once per call, and
// encoding/json's reflection was most of what validation cost.
func decode(raw []byte) (any, error) {
	d := decoder{b: raw}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.i = jsonscan.SkipSpace(d.b, d.i); d.i != len(d.b) {
		return nil, errJSON
	}
	return v, nil
}

var errJSON = errors.New("invalid JSON")

type decoder struct {
	b []byte
	i int
}

func (d *decoder) value(depth int) (any, error) {
	if depth > jsonscan.MaxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	d.i = jsonscan.SkipSpace(d.b, d.i)
	if d.i >= len(d.b) {
		return nil, errJSON
	}
	switch c := d.b[d.i]; c {
	case '{':
		obj := map[string]any{}
		d.i++
		if d.i = jsonscan.SkipSpace(d.b, d.i); d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return obj, nil
		}
		for {
			d.i = jsonscan.SkipSpace(d.b, d.i)
			key, err := d.str()
			if err != nil {
				return nil, err
			}
			if d.i = jsonscan.SkipSpace(d.b, d.i); d.i >= len(d.b) || d.b[d.i] != ':' {
				return nil, errJSON
			}
			d.i++
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj[key] = v // a repeated member: the last wins, as in encoding/json
			if d.i = jsonscan.SkipSpace(d.b, d.i); d.i >= len(d.b) {
				return nil, errJSON
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case '}':
				d.i++
				return obj, nil
			default:
				return nil, errJSON
			}
		}
	case '[':
		arr := []any{}
		d.i++
		if d.i = jsonscan.SkipSpace(d.b, d.i); d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return arr, nil
		}
		for {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			if d.i = jsonscan.SkipSpace(d.b, d.i); d.i >= len(d.b) {
				return nil, errJSON
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				return arr, nil
			default:
				return nil, errJSON
			}
		}
	case '"':
		return d.str()
	}
	start := d.i
	end, err := jsonscan.SkipValue(d.b, d.i, depth)
	if err != nil {
		return nil, err
	}
	d.i = end
	switch tok := d.b[start:end]; tok[0] {
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	default:
		return json.Number(tok), nil
	}
}

func (d *decoder) str() (string, error) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", errJSON
	}
	end, err := jsonscan.SkipString(d.b, d.i)
	if err != nil {
		return "", err
	}
	s, ok := jsonscan.String(d.b[d.i:end])
	if !ok {
		return "", errJSON
	}
	d.i = end
	return s, nil
}
