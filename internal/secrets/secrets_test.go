package secrets

import (
	"strings"
	"testing"
)

// Fake credentials in their vendors' formats: random-looking, marked FAKE
// or EXAMPLE where the format leaves room.
const (
	fakeAWS       = "AKIAIOSFODNN7EXAMPLE"
	fakeGoogle    = "AIzaFAKEGnswph8PRvQSuEqcTdr3ZZx6HQO35UW"
	fakeGitHub    = "ghp_FAKEzQXzoohJKjqqRKApEHmVBFRN2YZl7c5m"
	fakeGitHubPAT = "github_pat_FAKEG3pr4HllooXL3Gv3fg_rMRcnNfzSgQGH0FRRHBKvaHrhlFberKiYdTfdbam0GQeZPc3n8fEkJftRkc"
	fakeGitLab    = "glpat-FAKEB0tZ8bBWtkX8eQWT"
	fakeSlack     = "xoxb-123456789012-1234567890123-FAKEhMCojezQGYGCMTBAlgSh"
	fakeWebhook   = "hooks.slack.com/services/T0FAKE0001/B0FAKE0002/FAKEe5TiDJDhBrTfXoSXq9vL"
	fakeStripe    = "sk_live_FAKE7zWQHC9JxMAOQ3gQLPNm"
	fakeOpenAI    = "sk-proj-FAKEqlvEUZu-xfxo-Ef28rLhNQZGSbh-5QwGNgv21Q4cLSWS"
	fakeOpenAIOld = "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"
	fakeAnthropic = "sk-ant-api03-FAKEOGVIAnFRwTA57_ClKifkAeAtOPyw5lsqDgRknb4DI4rx2g1ZDw8fxPceYgJfL6GDYk26cIJXv6ZxNu8bsq_nGW6RjAA"
	fakeJWT       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlLXVzZXItMDAwMSIsIm5hbWUiOiJGYWtlIFVzZXIiLCJpYXQiOjE3NjcyMjU2MDB9.FAKEsigO4JeHawYKQu9PKLdcNR88oxIuPriV69MtF5o"
	fakeKeyBlock  = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBGQUtFRkFLRUZBS0VGQUtFRkFLRUZBS0VGQUtFRkFLRQAAAJgFAKEFAKE\n-----END OPENSSH PRIVATE KEY-----"
)

func TestFindKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text   string
		kind   Kind
		secret string // the text the match covers
	}{
		{"aws_access_key_id = " + fakeAWS, AWSAccessKeyID, fakeAWS},
		{"key=" + fakeGoogle + "&q=1", GoogleAPIKey, fakeGoogle},
		{"GITHUB_TOKEN=" + fakeGitHub, GitHubToken, fakeGitHub},
		{"token " + fakeGitHubPAT + ".", GitHubToken, fakeGitHubPAT},
		{"remote: " + fakeGitLab, GitLabToken, fakeGitLab},
		{`{"slack":"` + fakeSlack + `"}`, SlackToken, fakeSlack},
		{"posting to https://" + fakeWebhook, SlackWebhook, fakeWebhook},
		{"stripe.api_key = '" + fakeStripe + "'", StripeKey, fakeStripe},
		{"OPENAI_API_KEY=" + fakeOpenAI, OpenAIKey, fakeOpenAI},
		{"key: " + fakeOpenAIOld, OpenAIKey, fakeOpenAIOld},
		{"x-api-key: " + fakeAnthropic, AnthropicKey, fakeAnthropic},
		{"id_token=" + fakeJWT, JWT, fakeJWT},
		{"cat ~/.ssh/id_ed25519\n" + fakeKeyBlock + "\n$ ", PrivateKey, fakeKeyBlock},
		{"Authorization: Bearer Zq8vN3pL0xR7tY2mK5wB9cF4hJ6", BearerToken, "Zq8vN3pL0xR7tY2mK5wB9cF4hJ6"},
		{"Authorization: Bearer " + fakeGitHub, GitHubToken, fakeGitHub},
		{"dial postgres://app:S3cr3t-P4ss@db.internal:5432/app failed", URLPassword, "S3cr3t-P4ss"},
		{"REDIS_URL=redis://:Qx7-bN2v-Lp9@cache:6379/0", URLPassword, "Qx7-bN2v-Lp9"},
		{`{"client_secret": "QDaIQdnz8sWsftq3OBFniVmZZOcxk4Ox"}`, NamedSecret, "QDaIQdnz8sWsftq3OBFniVmZZOcxk4Ox"},
		{"DB_PASSWORD=Tr0ub4dor&3x", NamedSecret, "Tr0ub4dor"},
		{"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", NamedSecret, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	}
	for _, c := range cases {
		ms := Find(c.text)
		if len(ms) != 1 || ms[0].Kind != c.kind || c.text[ms[0].Start:ms[0].End] != c.secret {
			t.Errorf("Find(%q) = %v, want one %s covering %q", c.text, describe(c.text, ms), c.kind, c.secret)
		}
		if !Suspect(c.text) || !Suspect([]byte(c.text)) {
			t.Errorf("Suspect(%q) = false", c.text)
		}
	}
}

// Ordinary text, ids, hashes, UUIDs, base64 contents, protocol tokens,
// placeholders and WWW-Authenticate challenges are not secrets.
func TestFindNothing(t *testing.T) {
	t.Parallel()
	b64 := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg", 40)
	for _, text := range []string{
		"A line of the file's contents, long enough to look like real text.",
		`{"progressToken":"Zq8vN3pL0xR7tY2mK5wB9cF4hJ6","nextCursor":"eyJvZmZzZXQiOjEwMH0","requestState":"c3RhdGUtMTIzNDU2Nzg5MA"}`,
		"nextPageToken=CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3a2xlNBIkYWJj",
		"session 550e8400-e29b-41d4-a716-446655440000 started",
		`{"token":"550e8400-e29b-41d4-a716-446655440000"}`,
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		`{"etag":"d41d8cd98f00b204e9800998ecf8427e","id":"01HZY3J5Q8W9X0V2B4N6M8K0P2"}`,
		b64,
		"data:image/png;base64," + b64,
		`Bearer resource_metadata="https://auth.example/.well-known/oauth-protected-resource"`,
		`Bearer realm="mcp", error="invalid_token", error_description="The access token expired"`,
		"Authorization: Bearer <token>",
		"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"api_key=YOUR_API_KEY_HERE_0123456789",
		`{"password":"********"}`,
		`{"password":"hunter2"}`,
		`{"apiKey":"${OPENAI_API_KEY}"}`,
		"https://user:password@example.com/",
		"the file starts with -----BEGIN RSA PRIVATE KEY----- and ends with -----END RSA PRIVATE KEY-----",
		"max_tokens=4096 temperature=0.7",
		`{"token_type":"Bearer","expires_in":3600}`,
		"PWD=/home/runner/work/project",
		"tasks: risk_live_checks done; desk-ant-colony",
		"eyJhbGciOiJIUzI1NiJ9 alone is only a header",
		"[GitHub token sha256:1a2b3c4d] is already masked",
		"const API_KEY = process.env.OPENAI_API_KEY_V2;",
		"password = hash_password(raw_password1)",
		"token: str = Field(..., description=\"API token\")",
		`{"client_secret": "config.oauth.clientSecret2"}`,
		"GITHUB_TOKEN=GITHUB_TOKEN_FOR_CI_2024",
		"apiKey: settings.providers.openai.apiKey",
		"at verify (/app/src/auth.ts:42:7) in token.js:12",
		"redis://:password@cache:6379",
	} {
		if ms := Find(text); len(ms) != 0 {
			t.Errorf("Find(%.80q) = %v, want nothing", text, describe(text, ms))
		}
	}
	if Suspect(b64) || Suspect("A line of the file's contents, long enough to look like real text.") {
		t.Error("Suspect fires on base64 contents or plain text")
	}
	if Suspect(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/srv/x.md"},"_meta":{"progressToken":7}}}`) {
		t.Error("Suspect fires on an ordinary tools/call with a progressToken")
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"password": "password", "DB_PASSWORD": "password", "passphrase": "password",
		"api_key": "secret", "X-Api-Key": "secret", "clientSecret": "secret", "GITHUB_TOKEN": "secret",
		"access_token": "secret", "aws_secret_access_key": "secret", "private_key": "secret", "Authorization": "secret",
		"progressToken": "", "nextPageToken": "", "csrf_token": "", "max_tokens": "", "token_type": "",
		"public_key": "", "cursor": "", "requestState": "", "taskId": "", "sessionId": "", "key": "", "author": "",
	} {
		password, ok := SecretName(name)
		got := ""
		if ok {
			got = "secret"
			if password {
				got = "password"
			}
		}
		if got != want {
			t.Errorf("SecretName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestPlausibleSecret(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v        string
		password bool
		want     bool
	}{
		{"QDaIQdnz8sWsftq3OBFniVmZZOcxk4Ox", false, true},
		{"0f9c2a7b41d8e3f6a5c7b9d1e2f4a6c8", false, true}, // a hex key under api_key
		{"550e8400-e29b-41d4-a716-446655440000", false, false},
		{"aaaaaaaaaaaaaaaaaaaaaaaa", false, false},
		{"correcthorsebatterystaple", false, false},
		{"QDaIQdnzsWsftqOBFniVmZZOcxkOx", false, false}, // no digit: a word, a name
		{"os.environ.API_KEY", false, false},
		{"MY_SERVICE_TOKEN_V2", false, false},
		{"/etc/ssl/private/server.key", false, false},
		{"https://vault.example/v1/secret", false, false},
		{"Tr0ub4dor&3", true, true},
		{"hunter22", true, false},
		{"", true, false},
	} {
		if got := PlausibleSecret(c.v, c.password); got != c.want {
			t.Errorf("PlausibleSecret(%q, %v) = %v, want %v", c.v, c.password, got, c.want)
		}
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	in := "push failed for " + fakeGitHub + " with Bearer Zq8vN3pL0xR7tY2mK5wB9cF4hJ6; password=Tr0ub4dor&3"
	out := Mask(in)
	for _, secret := range []string{fakeGitHub, "Zq8vN3pL0xR7tY2mK5wB9cF4hJ6", "Tr0ub4dor"} {
		if strings.Contains(out, secret) {
			t.Errorf("Mask left %q in %q", secret, out)
		}
	}
	want := "push failed for [GitHub token sha256:" + Hash(fakeGitHub) + "] with Bearer [bearer token sha256:" + Hash("Zq8vN3pL0xR7tY2mK5wB9cF4hJ6") + "]; password=[secret value sha256:" + Hash("Tr0ub4dor") + "]&3"
	if out != want {
		t.Errorf("Mask = %q\nwant   %q", out, want)
	}
	if again := Mask(out); again != out {
		t.Errorf("Mask is not idempotent: %q", again)
	}
	if s := "nothing to hide"; Mask(s) != s {
		t.Error("Mask changed clean text")
	}
	if h := Hash(fakeGitHub); len(h) != 8 || h == Hash(fakeGitLab) {
		t.Errorf("Hash = %q", h)
	}
}

func describe(text string, ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Kind.String()+" "+text[m.Start:m.End])
	}
	return out
}

func BenchmarkSuspect(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":41,"result":{"content":[{"type":"text","text":"` + strings.Repeat("A line of the file's contents, long enough to look like real text. ", 8) + `"}]}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if Suspect(line) {
			b.Fatal("suspect")
		}
	}
}

// Find never fails on any text, its matches are in order, apart and inside
// the text, and Suspect never misses what Find finds (it is the rule's
// first look at every frame).
func FuzzFind(f *testing.F) {
	for _, s := range []string{fakeAWS, "Bearer\t" + "Zq8vN3pL0xR7tY2mK5wB9cF4hJ6", fakeKeyBlock, fakeJWT, "a://u:S3cr3t-P4ss@h", `"password":"Tr0ub4dor&3x"`, "sk-", "eyJ", "-----BEGIN ", "x=", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms := Find(s)
		end := 0
		for _, m := range ms {
			if m.Start < end || m.End <= m.Start || m.End > len(s) || m.Kind == 0 || m.Kind >= numKinds {
				t.Fatalf("Find(%q) = %v", s, ms)
			}
			end = m.End
		}
		if len(ms) > 0 && !Suspect(s) {
			t.Fatalf("Suspect(%q) = false, Find = %v", s, describe(s, ms))
		}
		_ = Mask(s)
	})
}

// suspectEveryByte is Suspect as it was before the anchor prefilter: the
// loose check at every position a trigger pair starts. The prefilter must
// answer exactly as it does.
func suspectEveryByte(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if trigger[s[i]] && pairs[s[i]][s[i+1]] && suspectAt(s, i) {
			return true
		}
	}
	return false
}

// TestAnchorsCoverEveryStart: wherever the loose check is true, an anchor
// byte lies at one of its offsets after it, so the prefilter, which
// looks closely only near anchors, misses no start. Each pattern start is
// tried at every offset in a step and with text on both sides.
func TestAnchorsCoverEveryStart(t *testing.T) {
	starts := []string{
		"AKIA", "ASIA", "ABIA", "ACCA", "AIza", "github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
		"xoxb", "xapp-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "sk-", "sk-ant-", "-----BEGIN ",
		"eyJhbGciOiJIUzI1NiJ9.eyJ", "hooks.slack.com/", "Bearer ", "bearer\t", "BEARER ", "a://u:p@h", `a:\/\/`,
		`"api_key":`, "password=", "TOKEN :", `'secret':`,
	}
	for _, p := range gitlabPrefixes {
		starts = append(starts, p)
	}
	for _, p := range starts {
		for pad := range 33 { // every offset in a step of the first stage, and past it
			for _, fill := range []string{"", "z", " ", "zzzzzzzzzzzzzzzzzzzz"} {
				s := strings.Repeat(" ", pad) + p + fill + strings.Repeat("z", pad)
				if got, want := Suspect(s), suspectEveryByte(s); got != want {
					t.Errorf("Suspect(%q) = %v, the loose check at every byte %v", s, got, want)
				}
			}
		}
	}
}

// TestColonsAsSuspectAtJudges: separatorAt judges the colon of a JSON member
// and an equals sign by the name before it without suspectAt, and answers
// as suspectAt does: for secret names and others, short names at the
// start of the text, and colons a URL follows.
func TestColonsAsSuspectAtJudges(t *testing.T) {
	t.Parallel()
	names := []string{"", "a", "ab", "abc", "path", "description", "x_key", "pwd", "PWD"}
	for _, list := range [][]string{passwordNames, secretNames, keyNames, notSecretNames} {
		names = append(names, list...)
	}
	for _, name := range names {
		for _, quoted := range []string{`"` + name + `"`, name, `'` + name + `'`, `"` + name + `" `} {
			for _, after := range []string{`"Zq8vN3pL0xR7tY2mK5wB9cF4"`, "//u:Tr0ub4dor&3x@h", `\/\/`, "=", ""} {
				for _, sep := range []string{":", "="} {
					s := quoted + sep + after
					for _, text := range []string{s, "{" + s + "}", `{"a":1,` + s} {
						if got, want := Suspect(text), suspectEveryByte(text); got != want {
							t.Errorf("Suspect(%q) = %v, the loose check at every byte %v", text, got, want)
						}
					}
				}
			}
		}
	}
}

// FuzzSuspectPrefilter: the prefilter answers as the loose check at every
// byte does, on any input.
func FuzzSuspectPrefilter(f *testing.F) {
	for _, s := range []string{fakeAWS, fakeKeyBlock, fakeJWT, "ghp_", "  glagent-", "xsk_live_", "sk-", `{"a":{"password":"x"}}`, "bearer  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Suspect(s), suspectEveryByte(s); got != want {
			t.Fatalf("Suspect(%q) = %v, the loose check at every byte %v", s, got, want)
		}
		if got, want := Suspect([]byte(s)), suspectEveryByte(s); got != want {
			t.Fatalf("Suspect([]byte(%q)) = %v, the loose check at every byte %v", s, got, want)
		}
	})
}

// nameBeforeEveryByte is nameBefore as it was before it looked at a
// name's last three letters first: the whole name read and normalised.
func nameBeforeEveryByte(b string, i int) (password, ok bool) {
	j := i
	for j > 0 && b[j-1] == ' ' {
		j--
	}
	if j > 0 && (b[j-1] == '"' || b[j-1] == '\'') {
		j--
	}
	k := j
	for k > 0 && j-k < 64 && identC[b[k-1]] {
		k--
	}
	if k == j || k > 0 && identC[b[k-1]] {
		return false, false
	}
	return secretName(b[k:j])
}

// TestNameBeforeEndsFirst: the look at a name's last three letters
// turns away only names that are no secret's, whatever the case, the
// separators inside or after the name and its length.
func TestNameBeforeEndsFirst(t *testing.T) {
	t.Parallel()
	var names []string
	for _, list := range [][]string{passwordNames, secretNames, keyNames, notSecretNames} {
		names = append(names, list...)
	}
	names = append(names, "DB_PASSWORD", "X-Api-Key", "client.secret", "token_", "api_key__", "apikey9", "path", "description", "pwd", "wd", "")
	long := strings.Repeat("a", 60)
	for _, name := range names {
		for _, n := range []string{name, strings.ToUpper(name), long + name, "a" + long + name, "x_" + name + "-"} {
			for _, s := range []string{`"` + n + `": 1`, n + "=1", n + " :1", "{'" + n + "':1", n + ":"} {
				checkNameBefore(t, s)
			}
		}
	}
}

// FuzzNameBefore: nameBefore answers as the full read of the name does,
// at every colon and equals sign of any input.
func FuzzNameBefore(f *testing.F) {
	for _, s := range []string{`{"api_key":"x"}`, "PASSWORD=hunter2", `"path":"/srv"`, `"Authorization" : "x"`, "a_b_c.d-e:"} {
		f.Add(s)
	}
	f.Fuzz(checkNameBefore)
}

func checkNameBefore(t *testing.T, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] != ':' && s[i] != '=' {
			continue
		}
		gotP, got := nameBefore(s, i)
		wantP, want := nameBeforeEveryByte(s, i)
		if gotP != wantP || got != want {
			t.Fatalf("nameBefore(%q, %d) = %v, %v; the full read of the name %v, %v", s, i, gotP, got, wantP, want)
		}
	}
}
