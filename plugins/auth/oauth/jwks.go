package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// keySet caches the issuer's signing keys (its JWKS).
//
// Reads are lock-free, from an immutable snapshot. Fetches run one at a
// time, each in a goroutine of its own bounded by Config.FetchTimeout (so
// that no request's cancellation aborts a fetch others wait for), and
// start at most once per Config.KeyRefreshInterval:
//   - a token whose kid is unknown waits for a fetch (one in progress, or
//     a new one), then is checked against the new keys;
//   - a token whose signature fails under a known kid does too (the issuer
//     may have rotated the key under the same kid), and is checked once
//     more when the kid's key came back from a newer fetch;
//   - keys older than Config.KeyMaxAge are fetched again in the
//     background, requests going on with the keys they have;
//   - a failed fetch keeps the keys fetched before.
type keySet struct {
	rs   *ResourceServer
	snap atomic.Pointer[keySnapshot]

	mu       sync.Mutex
	fetching chan struct{} // closed when the fetch in progress ends
	lastTry  time.Time
	lastErr  error // of the last fetch
}

// keySnapshot is one fetch's keys: public signing keys only.
type keySnapshot struct {
	keys    []jose.JSONWebKey
	fetched time.Time
}

// key returns the issuer's key for a token signed with alg by the key
// named kid (or by its only key for alg, when kid is empty), and the
// snapshot it was found in.
func (ks *keySet) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, *keySnapshot, error) {
	if s := ks.snap.Load(); s != nil {
		if k := s.find(kid, alg); k != nil {
			if ks.rs.now().Sub(s.fetched) >= ks.rs.cfg.KeyMaxAge {
				ks.start()
			}
			return k, s, nil
		}
	}
	ch, err := ks.await(ctx)
	if err != nil {
		return nil, nil, err
	}
	s := ks.snap.Load()
	if s != nil {
		if k := s.find(kid, alg); k != nil {
			return k, s, nil
		}
	}
	if err := ks.failed(); err != nil {
		// The last fetch failed: the key may well exist.
		return nil, nil, err
	}
	return nil, nil, ks.unknown(kid, alg, s, ch != nil)
}

// rotated returns the key named kid (as [keySet.key] finds it) from keys
// fetched after from, the snapshot whose key for kid failed to verify a
// token's signature: the issuer may have rotated the key and kept its kid.
// It waits for a fetch, one in progress or a new one, unless the last
// began less than KeyRefreshInterval ago, so a forged signature costs no
// more fetches than a forged kid. It returns nil, nil when no newer keys
// are known: the signature is bad.
func (ks *keySet) rotated(ctx context.Context, from *keySnapshot, kid, alg string) (*jose.JSONWebKey, error) {
	ch, err := ks.await(ctx)
	if err != nil {
		return nil, err
	}
	s := ks.snap.Load()
	if s == from {
		if err := ks.failed(); err != nil {
			// The keys could not be fetched again: the kid's key may
			// well have changed.
			return nil, err
		}
		return nil, nil
	}
	if k := s.find(kid, alg); k != nil {
		return k, nil
	}
	return nil, ks.unknown(kid, alg, s, ch != nil)
}

// await waits for a fetch of the keys, one in progress or a new one, and
// returns its channel; it returns nil at once when the last fetch began
// less than KeyRefreshInterval ago.
func (ks *keySet) await(ctx context.Context) (chan struct{}, error) {
	ch := ks.start()
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, &UnavailableError{What: "jwks", Err: fmt.Errorf("waiting for the key set: %w", ctx.Err())}
		}
	}
	return ch, nil
}

// failed returns the error of the last fetch, nil when it succeeded.
func (ks *keySet) failed() error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.lastErr
}

// unknown is the refusal of a token whose kid names no key of s; fetched
// says whether s was fetched for this token.
func (ks *keySet) unknown(kid, alg string, s *keySnapshot, fetched bool) error {
	name := "kid " + quote(kid)
	if kid == "" {
		name = "no kid, and not exactly one " + alg + " key"
	}
	if !fetched && s != nil {
		return refuse(UnknownKey, fmt.Sprintf("%s in the issuer's JWKS, fetched %v ago (fetched again at most every %v)",
			name, ks.rs.now().Sub(s.fetched).Round(time.Millisecond), ks.rs.cfg.KeyRefreshInterval))
	}
	return refuse(UnknownKey, name+" in the issuer's JWKS, fetched just now")
}

// start begins a fetch unless one is in progress (it returns that one's
// channel) or the last began less than KeyRefreshInterval ago (it returns
// nil).
func (ks *keySet) start() chan struct{} {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.fetching != nil {
		return ks.fetching
	}
	now := ks.rs.now()
	if !ks.lastTry.IsZero() && now.Sub(ks.lastTry) < ks.rs.cfg.KeyRefreshInterval {
		return nil
	}
	ks.lastTry = now
	ch := make(chan struct{})
	ks.fetching = ch
	go ks.fetch(ch)
	return ch
}

func (ks *keySet) fetch(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), ks.rs.cfg.FetchTimeout)
	defer cancel()
	keys, err := ks.load(ctx)
	if err != nil {
		err = &UnavailableError{What: "jwks", Err: err}
		ks.rs.cfg.Logger.Warn("oauth: fetching the issuer's keys failed", slog.String("issuer", ks.rs.cfg.Issuer), slog.Any("error", err))
	} else {
		ks.snap.Store(&keySnapshot{keys: keys, fetched: ks.rs.now()})
	}
	ks.mu.Lock()
	ks.lastErr, ks.fetching = err, nil
	ks.mu.Unlock()
	close(done)
}

// load fetches the JWKS the issuer's metadata names.
func (ks *keySet) load(ctx context.Context) ([]jose.JSONWebKey, error) {
	m, err := ks.rs.discovery.get(ctx)
	if err != nil {
		return nil, err
	}
	if m.JWKSURI == "" {
		return nil, fmt.Errorf("the issuer's metadata has no jwks_uri")
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if _, err := getJSON(ctx, ks.rs.client, m.JWKSURI, &set); err != nil {
		return nil, err
	}
	keys := make([]jose.JSONWebKey, 0, len(set.Keys))
	var skipped []string
	for i, raw := range set.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil {
			// A key of a type go-jose does not know spoils only itself.
			skipped = append(skipped, fmt.Sprintf("keys[%d]: %v", i, err))
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if !k.IsPublic() {
			if _, symmetric := k.Key.([]byte); symmetric {
				skipped = append(skipped, fmt.Sprintf("keys[%d] (kid %q): a symmetric key", i, k.KeyID))
				continue
			}
			k = k.Public()
		}
		if !k.Valid() {
			skipped = append(skipped, fmt.Sprintf("keys[%d] (kid %q): invalid", i, k.KeyID))
			continue
		}
		keys = append(keys, k)
	}
	if len(skipped) > 0 {
		ks.rs.cfg.Logger.Warn("oauth: keys of the issuer's JWKS skipped", slog.String("jwks_uri", m.JWKSURI), slog.Any("skipped", skipped))
	}
	if len(keys) == 0 {
		return nil, errors.New(m.JWKSURI + ": no signing key")
	}
	return keys, nil
}

// find returns the key named kid that can verify alg, or, without kid,
// the only key that can.
func (s *keySnapshot) find(kid, alg string) *jose.JSONWebKey {
	var found *jose.JSONWebKey
	for i := range s.keys {
		k := &s.keys[i]
		if k.KeyID != kid && kid != "" {
			continue
		}
		if (k.Algorithm != "" && k.Algorithm != alg) || !fits(k.Key, alg) {
			continue
		}
		if kid != "" {
			return k
		}
		if found != nil {
			return nil // ambiguous
		}
		found = k
	}
	return found
}

// fits reports whether a public key can verify signatures made with alg.
func fits(key any, alg string) bool {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		switch alg {
		case string(jose.ES256):
			return k.Curve == elliptic.P256()
		case string(jose.ES384):
			return k.Curve == elliptic.P384()
		case string(jose.ES512):
			return k.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == string(jose.EdDSA)
	}
	return false
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
