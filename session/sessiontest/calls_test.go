package sessiontest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// TestCallsMix decodes a generated capture and checks it has exactly the
// calls asked for, each answered once, in the proportions Calls promises.
func TestCallsMix(t *testing.T) {
	const calls = 20_000
	data, err := io.ReadAll(Calls(calls, 5_000))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := io.ReadAll(Calls(calls, 5_000))
	if !bytes.Equal(data, again) {
		t.Fatal("two generations differ")
	}
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
			Meta struct {
				Token string `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct{ Code int } `json:"error"`
	}
	var n struct{ calls, sessions, stderr, toolErrors, badParams, progress, outOfOrder int }
	open := map[string]bool{}
	lastAnswered := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var env struct {
			Direction string  `json:"direction"`
			Session   string  `json:"session_id"`
			Raw       message `json:"raw"`
		}
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatalf("line %q: %v", sc.Bytes(), err)
		}
		m := env.Raw
		switch {
		case env.Direction == "meta":
			n.sessions++
		case env.Direction == "stderr":
			n.stderr++
		case m.Method == "tools/call":
			n.calls++
			open[env.Session+string(m.ID)] = true
		case m.Method == "notifications/progress":
			n.progress++
		case m.ID != nil && env.Direction == "s2c":
			key := env.Session + string(m.ID)
			if !open[key] && string(m.ID) != "0" && string(m.ID) != `"list-1"` {
				t.Fatalf("answer to %s that is not open", m.ID)
			}
			delete(open, key)
			var id int
			if json.Unmarshal(m.ID, &id) == nil && id > 0 {
				if id < lastAnswered {
					n.outOfOrder++
				}
				lastAnswered = id
			}
			switch {
			case m.Error != nil && m.Error.Code == -32602:
				n.badParams++
			case m.Result != nil && m.Result.IsError:
				n.toolErrors++
			case m.Result != nil && len(m.Result.Content) == 1:
				if l := len(m.Result.Content[0].Text); l < 180 || l > 2100 { // escapes are counted before decoding
					t.Errorf("result text of %d bytes", l)
				}
			}
		}
	}
	t.Logf("%+v", n)
	if n.calls != calls || len(open) != 0 {
		t.Fatalf("%d calls, %d unanswered; want %d, 0", n.calls, len(open), calls)
	}
	if n.sessions != calls/5_000 {
		t.Errorf("%d sessions, want %d", n.sessions, calls/5_000)
	}
	within := func(what string, got int, lo, hi float64) {
		if f := float64(got) / calls; f < lo || f > hi {
			t.Errorf("%s: %d of %d calls (%.2f%%), want %.1f%%–%.1f%%", what, got, calls, 100*f, 100*lo, 100*hi)
		}
	}
	within("isError results", n.toolErrors, 0.006, 0.014)
	within("-32602 answers", n.badParams, 0.003, 0.008)
	within("progress notifications", n.progress, 0.01, 0.04)
	within("answers out of order", n.outOfOrder, 0.003, 0.03)
	within("stderr lines", n.stderr, 0.003, 0.03)
}
