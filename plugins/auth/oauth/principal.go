package oauth

import (
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// Principal is who a verified token speaks for. [ResourceServer.Verify]
// puts it in the SDK's auth.TokenInfo, which hooks see as
// Request().TokenInfo; read it with [PrincipalOf].
type Principal struct {
	// Subject is the token's sub; for a token without one (client
	// credentials, at some authorization servers), its client ID. It is
	// also TokenInfo.UserID, hence flows.Request.Principal(), which the
	// audit plugin records and the rate-limit plugin's PerPrincipal
	// budget is keyed on.
	Subject string
	// ClientID is the OAuth client the token was issued to (client_id, or
	// azp); empty when the token does not say. It is also
	// TokenInfo.Extra["client_id"], hence flows.Request.ClientID().
	ClientID string
	// Scopes are the token's scopes (scope, or scp).
	Scopes []string
	// Expiry is when the token expires (exp).
	Expiry time.Time
	// Issuer is the authorization server that issued it (iss, which
	// equals Config.Issuer).
	Issuer string
	// TokenID is its jti, when it has one.
	TokenID string
	// Introspected reports whether the token was checked by introspection
	// (an opaque token) rather than as a JWT.
	Introspected bool
	// Claims are all the token's claims as JSON decodes them: the JWT's
	// payload, or the introspection response's members. Rules read them
	// (groups, roles, a tenant: plugins/policy); they are also
	// TokenInfo.Extra["claims"], hence flows.Request.Claims().
	Claims map[string]any
}

// extraPrincipal is the auth.TokenInfo.Extra key of the *Principal.
const extraPrincipal = "github.com/hookflow/hookflow/plugins/auth/oauth.Principal"

// extraClaims is the auth.TokenInfo.Extra key of the claims, read by
// flows.Request.Claims.
const extraClaims = "claims"

// extraClientID is the auth.TokenInfo.Extra key of the client ID, read by
// flows.Request.ClientID.
const extraClientID = "client_id"

// PrincipalOf returns the principal of a token verified by a
// [ResourceServer], or nil, false when ti is nil or was made by another
// verifier. The principal is shared by the requests made with the same
// token: do not modify it.
func PrincipalOf(ti *sdkauth.TokenInfo) (*Principal, bool) {
	if ti == nil {
		return nil, false
	}
	p, ok := ti.Extra[extraPrincipal].(*Principal)
	return p, ok && p != nil
}

// tokenInfo returns the SDK's view of p.
func (p *Principal) tokenInfo() *sdkauth.TokenInfo {
	extra := map[string]any{extraPrincipal: p}
	if p.ClientID != "" {
		extra[extraClientID] = p.ClientID
	}
	if p.Claims != nil {
		extra[extraClaims] = p.Claims
	}
	return &sdkauth.TokenInfo{Scopes: p.Scopes, Expiration: p.Expiry, UserID: p.Subject, Extra: extra}
}
