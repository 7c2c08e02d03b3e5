package sariftest

import "testing"

// TestLoaderRefuses: the validating compiler cannot be talked into reading
// a local file through a $ref.
func TestLoaderRefuses(t *testing.T) {
	c := NewCompiler()
	const url = "https://example.invalid/hostile.json"
	if err := c.AddResource(url, map[string]any{"$ref": "file:///etc/hostname"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(url); err == nil {
		t.Error("a schema referring to file:///etc/hostname compiled; the loader must refuse it")
	}
}
