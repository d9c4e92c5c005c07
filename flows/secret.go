package flows

import "strings"

// A phrase is a field name split into its words, lower case: "apiKey" is
// {"api", "key"}. secret says whether a name ending in it is hidden;
// suffix lets its last word also end a word written without separators
// ("dbpassword").
type phrase struct {
	words  []string
	secret bool
	suffix bool
}

// defaultPhrases are the phrases of the default secret list and of the
// names it leaves visible though a shorter phrase would hide them.
func defaultPhrases() []phrase {
	var ps []phrase
	add := func(secret, suffix bool, names ...string) {
		for _, n := range names {
			ps = append(ps, phrase{words: splitName(n), secret: secret, suffix: suffix})
		}
	}
	add(true, true, "password", "passwd", "secret", "token")
	add(true, false, "passwords", "passphrase", "secrets", "credential", "credentials",
		"authorization", "cookie", "cookies", "set_cookie", "jwt", "apikey", "apikeys",
		"api_key", "api_keys", "private_key", "privatekey", "secret_key", "access_key",
		"signing_key", "encryption_key", "session_id", "sessionid", "session_key")
	// Pagination cursors are named like tokens but hold no credential.
	add(false, false, "page_token", "next_token", "continuation_token", "sync_token")
	return ps
}

// qualifier reports whether w is a word that, ending a name, does not
// change what it holds: "password_value", "token2", "secret_b64" (whose
// words are "secret", "b", "64").
func qualifier(w string) bool {
	if isDigit(w[0]) {
		return true
	}
	for _, q := range [...]string{"value", "raw", "plain", "plaintext", "clear", "cleartext", "hash", "hashed",
		"b", "base", "hex", "pem", "der", "enc", "encoded", "encrypted",
		"confirm", "confirmation", "again", "repeat", "new", "old", "current"} {
		if strings.EqualFold(w, q) {
			return true
		}
	}
	return false
}

// maxWords is how many of a name's last words are matched; the words
// before them are ignored.
const maxWords = 8

// span is a word of a name, name[start:end].
type span struct{ start, end int }

// words splits name into its words, keeping the last maxWords, without
// allocating. Words are separated by any ASCII character that is not a
// letter or digit, and start at an upper-case letter after a lower-case
// one or a digit ("apiKey"), at the last capital of a run followed by a
// lower-case letter ("APIKey" is "API", "Key"), and where letters and
// digits meet ("oauth2token"). Other bytes (UTF-8) are letters.
func words(name string, out *[maxWords]span) int {
	n, start := 0, -1
	emit := func(end int) {
		if start < 0 {
			return
		}
		if n == maxWords {
			copy(out[:], out[1:])
			n--
		}
		out[n] = span{start, end}
		n++
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !wordByte(c) {
			emit(i)
			continue
		}
		if start >= 0 && boundary(name, i) {
			emit(i)
		}
		if start < 0 {
			start = i
		}
	}
	emit(len(name))
	return n
}

// boundary reports whether a new word starts at name[i], inside a word.
func boundary(name string, i int) bool {
	prev, c := name[i-1], name[i]
	switch {
	case isDigit(prev) != isDigit(c):
		return true
	case isUpper(c) && (isLower(prev) || prev >= 0x80):
		return true
	case isUpper(prev) && isUpper(c) && i+1 < len(name) && isLower(name[i+1]):
		return true
	}
	return false
}

func wordByte(c byte) bool { return isDigit(c) || isUpper(c) || isLower(c) || c >= 0x80 }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }

// splitName returns name's words, lower case; it allocates, for
// building phrases only.
func splitName(name string) []string {
	var sp [maxWords]span
	n := words(name, &sp)
	ws := make([]string, n)
	for i := range n {
		ws[i] = strings.ToLower(name[sp[i].start:sp[i].end])
	}
	return ws
}

// decide returns whether the phrase that decides name is secret, and
// whether one does: the longest of ps that ends name's words, trailing
// qualifiers left out.
func decide(ps []phrase, name string) (secret, found bool) {
	var sp [maxWords]span
	n := words(name, &sp)
	for n > 1 && qualifier(name[sp[n-1].start:sp[n-1].end]) {
		n--
	}
	if n == 0 {
		return false, false
	}
	best := 0
	for i := range ps {
		p := &ps[i]
		if len(p.words) > n || len(p.words) <= best && found {
			continue
		}
		if ends(p, name, sp[:n]) {
			best, secret, found = len(p.words), p.secret, true
		}
	}
	return secret, found
}

// ends reports whether name's words ws end with p's words.
func ends(p *phrase, name string, ws []span) bool {
	off := len(ws) - len(p.words)
	for j, w := range p.words {
		s := name[ws[off+j].start:ws[off+j].end]
		if strings.EqualFold(s, w) {
			continue
		}
		last := j == len(p.words)-1
		if !(last && p.suffix && len(p.words) == 1 && len(s) > len(w) && strings.EqualFold(s[len(s)-len(w):], w)) {
			return false
		}
	}
	return true
}

// sameName reports whether a and b have the same words, in any case:
// "session_id", "sessionId" and "Session-ID" are one name.
func sameName(a string, b []string) bool {
	var sp [maxWords]span
	n := words(a, &sp)
	if n != len(b) {
		return false
	}
	for i, w := range b {
		if !strings.EqualFold(a[sp[i].start:sp[i].end], w) {
			return false
		}
	}
	return true
}
