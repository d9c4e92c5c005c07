package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// jwsHeader is what the server reads of a JWS header before verifying:
// enough to refuse early and to find the key.
type jwsHeader struct {
	Alg  string `json:"alg"`
	Kid  string `json:"kid"`
	Typ  string `json:"typ"`
	Crit any    `json:"crit"`
}

// parseHeader decodes the protected header of a JWS compact
// serialization; ok is false when token is not one (an opaque token).
func parseHeader(token string) (h jwsHeader, ok bool) {
	if strings.Count(token, ".") != 2 {
		return h, false
	}
	seg, _, _ := strings.Cut(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil || json.Unmarshal(b, &h) != nil || h.Alg == "" {
		return jwsHeader{}, false
	}
	return h, true
}

// accessClaims are the claims of a JWT access token (RFC 9068 §2.2).
type accessClaims struct {
	Issuer    string           `json:"iss"`
	Subject   string           `json:"sub"`
	Audience  jwt.Audience     `json:"aud"`
	Expiry    *jwt.NumericDate `json:"exp"`
	NotBefore *jwt.NumericDate `json:"nbf"`
	IssuedAt  *jwt.NumericDate `json:"iat"`
	ID        string           `json:"jti"`
	ClientID  string           `json:"client_id"`
	AZP       string           `json:"azp"`
	Scope     scopeClaim       `json:"scope"`
	SCP       scopeClaim       `json:"scp"`
	Cnf       json.RawMessage  `json:"cnf"`
}

// scopeClaim is a scope claim: a space-separated string (RFC 9068's
// "scope"), or an array of strings (the "scp" of some servers).
type scopeClaim []string

func (s *scopeClaim) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*s = strings.Fields(str)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("want a string or an array of strings")
	}
	*s = list
	return nil
}

// verifyJWT checks a JWT access token (RFC 9068): algorithm, type,
// signature with the issuer's key, then the claims.
func (rs *ResourceServer) verifyJWT(ctx context.Context, token string, h jwsHeader) (*Principal, error) {
	if !slices.Contains(rs.cfg.Algorithms, h.Alg) {
		return nil, refuse(Algorithm, fmt.Sprintf("alg %q is not accepted (Config.Algorithms: %s)", h.Alg, strings.Join(rs.cfg.Algorithms, ", ")))
	}
	if !rs.typeAccepted(h.Typ) {
		return nil, refuse(TokenType, fmt.Sprintf("typ %q, want %s (RFC 9068 access tokens; see Config.TokenTypes)", h.Typ, strings.Join(rs.cfg.TokenTypes, " or ")))
	}
	if h.Crit != nil {
		return nil, refuse(Malformed, "the header has critical extensions (crit), which this server does not understand")
	}
	tok, err := jwt.ParseSigned(token, rs.algs)
	if err != nil {
		return nil, refuse(Malformed, "not a signed JWT: "+err.Error())
	}
	key, snap, err := rs.keys.key(ctx, h.Kid, h.Alg)
	if err != nil {
		return nil, err
	}
	var c accessClaims
	var all map[string]any
	err = tok.Claims(key.Key, &c, &all)
	if errors.Is(err, jose.ErrCryptoFailure) {
		// The issuer may have put a new key under the same kid: try the
		// kid's key of a newer fetch, once.
		newer, rerr := rs.keys.rotated(ctx, snap, h.Kid, h.Alg)
		if rerr != nil {
			return nil, rerr
		}
		if newer != nil {
			key, c, all = newer, accessClaims{}, nil
			err = tok.Claims(key.Key, &c, &all)
		}
	}
	if err != nil {
		if errors.Is(err, jose.ErrCryptoFailure) {
			return nil, refuse(Signature, fmt.Sprintf("the signature does not verify with the issuer's key %q", key.KeyID))
		}
		return nil, refuse(Claims, "the claims do not decode: "+err.Error())
	}
	p, err := rs.checkClaims(&c)
	if err != nil {
		return nil, err
	}
	p.Claims = all
	return p, nil
}

// typeAccepted reports whether a JWS typ is one of Config.TokenTypes
// (RFC 7515 §4.1.9: without case, "application/" optional).
func (rs *ResourceServer) typeAccepted(typ string) bool {
	t := strings.TrimPrefix(strings.ToLower(typ), "application/")
	for _, want := range rs.cfg.TokenTypes {
		if t == strings.TrimPrefix(strings.ToLower(want), "application/") {
			return true
		}
	}
	return false
}

// checkClaims checks the claims of a verified JWT.
func (rs *ResourceServer) checkClaims(c *accessClaims) (*Principal, error) {
	switch {
	case c.Issuer == "":
		return nil, refuse(Claims, "no iss")
	case c.Issuer != rs.cfg.Issuer:
		return nil, refuse(Issuer, fmt.Sprintf("iss %q, want %q", c.Issuer, rs.cfg.Issuer))
	case c.Expiry == nil:
		return nil, refuse(Claims, "no exp")
	case len(c.Cnf) > 0 && string(c.Cnf) != "null":
		return nil, refuse(Claims, "the token is bound to a key (cnf: DPoP or mTLS), which this server cannot check")
	}
	if err := rs.checkAudience(c.Audience); err != nil {
		return nil, err
	}
	if err := rs.checkTimes(c.Expiry.Time(), optTime(c.NotBefore), optTime(c.IssuedAt)); err != nil {
		return nil, err
	}
	p := &Principal{
		Subject:  c.Subject,
		ClientID: c.ClientID,
		Scopes:   c.Scope,
		Expiry:   c.Expiry.Time(),
		Issuer:   c.Issuer,
		TokenID:  c.ID,
	}
	if p.ClientID == "" {
		p.ClientID = c.AZP
	}
	if p.Scopes == nil {
		p.Scopes = c.SCP
	}
	if p.Subject == "" {
		p.Subject = p.ClientID
	}
	if p.Subject == "" {
		return nil, refuse(Claims, "neither sub nor client_id: the token names no principal")
	}
	return p, nil
}

func optTime(d *jwt.NumericDate) time.Time {
	if d == nil {
		return time.Time{}
	}
	return d.Time()
}

// checkAudience checks that aud names the resource (RFC 8707): exactly,
// or but for a trailing slash (the SDK's oauthex.MatchesResource).
func (rs *ResourceServer) checkAudience(aud []string) *TokenError {
	if len(aud) == 0 {
		return refuse(Audience, fmt.Sprintf("no aud: the token is not bound to a resource, want %q", rs.cfg.Resource))
	}
	if !oauthex.MatchesResource(aud, rs.cfg.Resource) {
		return refuse(Audience, fmt.Sprintf("aud %q does not name this resource %q", []string(aud), rs.cfg.Resource))
	}
	return nil
}

// checkTimes checks exp, and nbf and iat when set, with the clock skew.
func (rs *ResourceServer) checkTimes(exp, nbf, iat time.Time) *TokenError {
	now, skew := rs.now(), rs.cfg.ClockSkew
	if !now.Before(exp.Add(skew)) {
		return refuse(Expired, fmt.Sprintf("exp %s is %v ago (clock skew %v)", exp.UTC().Format(time.RFC3339), now.Sub(exp).Round(time.Second), skew))
	}
	if !nbf.IsZero() && now.Add(skew).Before(nbf) {
		return refuse(NotYetValid, fmt.Sprintf("nbf %s is %v ahead (clock skew %v)", nbf.UTC().Format(time.RFC3339), nbf.Sub(now).Round(time.Second), skew))
	}
	if !iat.IsZero() && now.Add(skew).Before(iat) {
		return refuse(NotYetValid, fmt.Sprintf("iat %s is %v ahead (clock skew %v)", iat.UTC().Format(time.RFC3339), iat.Sub(now).Round(time.Second), skew))
	}
	return nil
}

// signatureAlgorithms converts Config.Algorithms for go-jose.
func signatureAlgorithms(names []string) []jose.SignatureAlgorithm {
	out := make([]jose.SignatureAlgorithm, len(names))
	for i, n := range names {
		out[i] = jose.SignatureAlgorithm(n)
	}
	return out
}
