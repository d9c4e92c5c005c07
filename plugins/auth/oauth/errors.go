package oauth

import (
	"log/slog"
	"strconv"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// Reason says why a token was refused.
type Reason int

// The reasons a token is refused.
const (
	// Malformed: neither a JWS compact serialization nor, without
	// introspection, anything else this server can check.
	Malformed Reason = iota + 1
	// Algorithm: signed with an algorithm outside Config.Algorithms
	// ("none" and HS* always are).
	Algorithm
	// TokenType: its JWS "typ" is not one of Config.TokenTypes.
	TokenType
	// UnknownKey: its "kid" names no key of the issuer's JWKS, even after
	// fetching it again (or the JWKS was fetched too recently to fetch it
	// again, see Config.KeyRefreshInterval).
	UnknownKey
	// Signature: the signature does not verify with the issuer's key of
	// its kid, nor with that kid's key fetched again (see
	// Config.KeyRefreshInterval).
	Signature
	// Issuer: iss is not Config.Issuer.
	Issuer
	// Audience: aud does not name Config.Resource: the token was issued for
	// another resource (RFC 8707).
	Audience
	// Expired: exp has passed (beyond the clock skew).
	Expired
	// NotYetValid: nbf, or iat, is in the future (beyond the clock skew).
	NotYetValid
	// Claims: a required claim is missing or malformed (iss, aud, exp, and
	// sub or client_id), or the token is bound to a key this server cannot
	// check (cnf).
	Claims
	// Inactive: the introspection endpoint says the token is not active
	// (revoked, expired, or unknown to it).
	Inactive
)

// String returns the reason's name, e.g. "audience".
func (r Reason) String() string {
	switch r {
	case Malformed:
		return "malformed"
	case Algorithm:
		return "algorithm"
	case TokenType:
		return "token_type"
	case UnknownKey:
		return "unknown_key"
	case Signature:
		return "signature"
	case Issuer:
		return "issuer"
	case Audience:
		return "audience"
	case Expired:
		return "expired"
	case NotYetValid:
		return "not_yet_valid"
	case Claims:
		return "claims"
	case Inactive:
		return "inactive"
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// TokenError is why a token was refused. It unwraps to the SDK's
// auth.ErrInvalidToken, so the request gets 401 with an invalid_token
// challenge. Its text never contains the token, and it implements
// slog.LogValuer, so that the auth plugin logs the reason.
type TokenError struct {
	// Reason classifies the refusal.
	Reason Reason
	// Detail explains it, e.g. `aud ["https://other.example.com"] does not name "https://mcp.example.com/mcp"`.
	Detail string
}

// Error returns "invalid token: <reason>: <detail>".
func (e *TokenError) Error() string {
	return "invalid token: " + e.Reason.String() + ": " + e.Detail
}

// Unwrap returns auth.ErrInvalidToken.
func (e *TokenError) Unwrap() error { return sdkauth.ErrInvalidToken }

// LogValue logs the reason and the detail.
func (e *TokenError) LogValue() slog.Value {
	return slog.GroupValue(slog.String("reason", e.Reason.String()), slog.String("detail", e.Detail))
}

func refuse(r Reason, detail string) *TokenError { return &TokenError{Reason: r, Detail: detail} }

// UnavailableError is why a token could not be checked: the authorization
// server's metadata, JWKS or introspection endpoint did not answer, or
// answered nonsense. It does not unwrap to auth.ErrInvalidToken: the
// token may well be good, so the request fails (HTTP 500) instead of
// asking the client to authorize again.
type UnavailableError struct {
	// What was being fetched: "metadata", "jwks" or "introspection".
	What string
	// Err is the failure.
	Err error
}

// Error returns "authorization server unavailable: <what>: <err>".
func (e *UnavailableError) Error() string {
	return "authorization server unavailable: " + e.What + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *UnavailableError) Unwrap() error { return e.Err }

// LogValue logs what failed and why.
func (e *UnavailableError) LogValue() slog.Value {
	return slog.GroupValue(slog.String("fetching", e.What), slog.String("error", e.Err.Error()))
}
