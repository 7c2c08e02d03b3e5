package toolschema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Canonical is raw (a JSON value) in one canonical form: no insignificant
// white space, object members sorted by name, strings escaped only where
// JSON requires it, numbers as written. Two tool definitions that differ
// only in layout or member order have the same canonical form. A member
// repeated in one object keeps its last value.
func Canonical(raw []byte) ([]byte, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // maps encode sorted by key
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Fingerprint is the hex SHA-256 of raw's canonical form.
func Fingerprint(raw []byte) (string, error) {
	c, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}
