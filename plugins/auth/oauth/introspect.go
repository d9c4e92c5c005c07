package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// introspector checks opaque tokens with the introspection endpoint
// (RFC 7662) and caches the results.
//
// The cache is keyed by the token's SHA-256, never the token; it holds
// at most CacheSize results, dropping the oldest first, each for CacheTTL
// at most and never past the token's expiry. Refusals are cached too, so
// that a client repeating a bad token does not make the server ask again
// each time; failures to ask are not.
type introspector struct {
	rs  *ResourceServer
	cfg Introspection

	mu      sync.Mutex
	entries map[[sha256.Size]byte]cacheEntry
	order   [][sha256.Size]byte // insertion order, oldest first
}

type cacheEntry struct {
	p     *Principal
	err   *TokenError
	until time.Time
}

// introspectionResponse is what the server reads of an introspection
// response (RFC 7662 §2.2).
type introspectionResponse struct {
	Active    bool            `json:"active"`
	Scope     scopeClaim      `json:"scope"`
	ClientID  string          `json:"client_id"`
	TokenType string          `json:"token_type"`
	Exp       *int64          `json:"exp"`
	Iat       *int64          `json:"iat"`
	Nbf       *int64          `json:"nbf"`
	Sub       string          `json:"sub"`
	Aud       audienceClaim   `json:"aud"`
	Iss       string          `json:"iss"`
	Jti       string          `json:"jti"`
	Cnf       json.RawMessage `json:"cnf"`
}

// audienceClaim is aud: a string or an array of strings.
type audienceClaim []string

func (a *audienceClaim) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = []string{s}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("aud: want a string or an array of strings")
	}
	*a = list
	return nil
}

// verify introspects token, whose SHA-256 is sum, or answers from the
// cache.
func (in *introspector) verify(ctx context.Context, token string, sum *[sha256.Size]byte) (*Principal, error) {
	key := *sum
	now := in.rs.now()
	if in.cfg.CacheTTL > 0 {
		in.mu.Lock()
		e, ok := in.entries[key]
		in.mu.Unlock()
		if ok && now.Before(e.until) {
			if e.err != nil {
				return nil, e.err
			}
			return e.p, nil // entries never outlive the token
		}
	}
	p, terr, err := in.ask(ctx, token)
	if err != nil {
		return nil, err
	}
	if in.cfg.CacheTTL > 0 {
		until := now.Add(in.cfg.CacheTTL)
		if p != nil && p.Expiry.Before(until) {
			until = p.Expiry
		}
		in.store(key, cacheEntry{p: p, err: terr, until: until})
	}
	if terr != nil {
		return nil, terr
	}
	return p, nil
}

// store caches e, dropping expired entries, then the oldest, to keep at
// most CacheSize.
func (in *introspector) store(key [sha256.Size]byte, e cacheEntry) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.entries == nil {
		in.entries = make(map[[sha256.Size]byte]cacheEntry)
	}
	if _, ok := in.entries[key]; !ok {
		if len(in.entries) >= in.cfg.CacheSize {
			in.evict()
		}
		in.order = append(in.order, key)
	}
	in.entries[key] = e
}

// evict drops the expired entries; if none was, the oldest one.
func (in *introspector) evict() {
	now := in.rs.now()
	kept := in.order[:0]
	for _, k := range in.order {
		if now.Before(in.entries[k].until) {
			kept = append(kept, k)
		} else {
			delete(in.entries, k)
		}
	}
	clear(in.order[len(kept):])
	in.order = kept
	if len(in.entries) >= in.cfg.CacheSize && len(in.order) > 0 {
		delete(in.entries, in.order[0])
		in.order = in.order[1:]
	}
}

// ask posts token to the introspection endpoint. It returns the principal,
// or why the token is refused, or why the endpoint could not say.
func (in *introspector) ask(ctx context.Context, token string) (*Principal, *TokenError, error) {
	endpoint := in.cfg.Endpoint
	if endpoint == "" {
		m, err := in.rs.discovery.get(ctx)
		if err != nil {
			return nil, nil, err
		}
		if m.IntrospectionEndpoint == "" {
			return nil, nil, &UnavailableError{What: "introspection", Err: fmt.Errorf("the issuer's metadata has no introspection_endpoint; set Introspection.Endpoint")}
		}
		endpoint = m.IntrospectionEndpoint
	}
	ctx, cancel := context.WithTimeout(ctx, in.rs.cfg.FetchTimeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	if in.cfg.Auth == ClientSecretPost {
		form.Set("client_id", in.cfg.ClientID)
		form.Set("client_secret", in.cfg.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, nil, &UnavailableError{What: "introspection", Err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if in.cfg.Auth == ClientSecretBasic {
		// RFC 6749 §2.3.1: both form-encoded before Basic encoding.
		req.SetBasicAuth(url.QueryEscape(in.cfg.ClientID), url.QueryEscape(in.cfg.ClientSecret))
	}
	resp, err := in.rs.client.Do(req)
	if err != nil {
		return nil, nil, &UnavailableError{What: "introspection", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, nil, &UnavailableError{What: "introspection", Err: fmt.Errorf("%s refused the resource server's credentials (%s): check Introspection.ClientID, ClientSecret and Auth (%v)", endpoint, resp.Status, in.cfg.Auth)}
	}
	var raw json.RawMessage
	if err := decodeJSON(resp, endpoint, &raw); err != nil {
		return nil, nil, &UnavailableError{What: "introspection", Err: err}
	}
	var r introspectionResponse
	var all map[string]any
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, nil, &UnavailableError{What: "introspection", Err: fmt.Errorf("%s: %w", endpoint, err)}
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, nil, &UnavailableError{What: "introspection", Err: fmt.Errorf("%s: %w", endpoint, err)}
	}
	p, terr := in.check(&r)
	if p != nil {
		p.Claims = all
	}
	return p, terr, nil
}

// check checks an introspection response as a JWT's claims are checked.
func (in *introspector) check(r *introspectionResponse) (*Principal, *TokenError) {
	rs := in.rs
	switch {
	case !r.Active:
		return nil, refuse(Inactive, "the introspection endpoint says the token is not active")
	case r.Iss != "" && r.Iss != rs.cfg.Issuer:
		return nil, refuse(Issuer, fmt.Sprintf("iss %q, want %q", r.Iss, rs.cfg.Issuer))
	case r.Exp == nil:
		return nil, refuse(Claims, "the introspection response has no exp")
	case len(r.Cnf) > 0 && string(r.Cnf) != "null", strings.EqualFold(r.TokenType, "DPoP"):
		return nil, refuse(Claims, "the token is bound to a key (cnf: DPoP or mTLS), which this server cannot check")
	}
	if err := rs.checkAudience(r.Aud); err != nil {
		return nil, err
	}
	exp := time.Unix(*r.Exp, 0)
	if err := rs.checkTimes(exp, unixOrZero(r.Nbf), unixOrZero(r.Iat)); err != nil {
		return nil, err
	}
	p := &Principal{Subject: r.Sub, ClientID: r.ClientID, Scopes: r.Scope, Expiry: exp, Issuer: rs.cfg.Issuer, TokenID: r.Jti, Introspected: true}
	if p.Subject == "" {
		p.Subject = p.ClientID
	}
	if p.Subject == "" {
		return nil, refuse(Claims, "neither sub nor client_id: the token names no principal")
	}
	return p, nil
}

func unixOrZero(v *int64) time.Time {
	if v == nil {
		return time.Time{}
	}
	return time.Unix(*v, 0)
}
