package checks

import "testing"

func TestAcceptOffers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept    string
		json, sse bool
	}{
		{"application/json, text/event-stream", true, true},
		{"*/*", true, true},
		{"application/*;q=0.5, text/*", true, true},
		{"Application/JSON; charset=utf-8", true, false},
		{"text/event-stream, application/json;q=0", false, true},
		{"text/html", false, false},
		{"application/json;q=zero, text/event-stream", true, true}, // an unreadable q is not a refusal
	} {
		json, sse := acceptOffers(c.accept)
		if json != c.json || sse != c.sse {
			t.Errorf("acceptOffers(%q) = %v, %v; want %v, %v", c.accept, json, sse, c.json, c.sse)
		}
	}
	if mt := mediaType(" text/event-stream ; charset=utf-8"); mt != "text/event-stream" {
		t.Errorf("mediaType: %q", mt)
	}
}
