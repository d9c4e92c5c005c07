package oidctest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// ClientCredentials gets an access token for resource with scopes through
// the client credentials grant, as [ServiceClient].
func (s *Server) ClientCredentials(t testing.TB, resource string, scopes ...string) string {
	t.Helper()
	tok, err := s.clientCredentials(ServiceClient, ServiceSecret, resource, scopes)
	if err != nil {
		t.Fatalf("oidctest: client credentials: %v\n%s", err, s.Log())
	}
	return tok
}

func (s *Server) clientCredentials(id, secret, resource string, scopes []string) (string, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	req, err := http.NewRequest(http.MethodPost, s.meta.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, body)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if err := json.Unmarshal(body, &tr); err != nil {
		return "", err
	}
	if tr.AccessToken == "" || !strings.EqualFold(tr.TokenType, "Bearer") {
		return "", fmt.Errorf("unexpected token response %s", body)
	}
	return tr.AccessToken, nil
}

// AuthorizationCode gets an access token for resource with scopes through
// authorization code with PKCE (S256) and the resource indicator, as
// [AppClient], for the user subject.
func (s *Server) AuthorizationCode(t testing.TB, resource, subject string, scopes ...string) string {
	t.Helper()
	cfg := &oauth2.Config{
		ClientID:    AppClient,
		Endpoint:    oauth2.Endpoint{AuthURL: s.meta.AuthorizationEndpoint, TokenURL: s.meta.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: AppRedirectURI,
		Scopes:      scopes,
	}
	verifier := oauth2.GenerateVerifier()
	state := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	res, err := s.Fetcher(subject)(context.Background(), &sdkauth.AuthorizationArgs{URL: authURL})
	if err != nil {
		t.Fatalf("oidctest: authorization: %v\n%s", err, s.Log())
	}
	if res.State != state {
		t.Fatalf("oidctest: authorization: state %q, want %q", res.State, state)
	}
	if res.Iss != s.Issuer() {
		t.Fatalf("oidctest: authorization: iss %q, want %q", res.Iss, s.Issuer())
	}
	tok, err := cfg.Exchange(context.Background(), res.Code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		t.Fatalf("oidctest: token exchange: %v\n%s", err, s.Log())
	}
	return tok.AccessToken
}

// Fetcher returns what an MCP client's OAuth handler calls to have the user
// authorize it (the SDK's auth.AuthorizationCodeFetcher): it follows the
// authorization URL as a browser would, logged in as subject, and returns
// the code, state and iss of the redirect to [AppRedirectURI]. The fetcher
// keeps its cookies, so a second authorization (step-up) reuses the login.
func (s *Server) Fetcher(subject string) sdkauth.AuthorizationCodeFetcher {
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{
		Jar: jar,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if strings.HasPrefix(req.URL.String(), AppRedirectURI) {
				return http.ErrUseLastResponse
			}
			if len(via) >= 10 {
				return errors.New("too many redirects")
			}
			return nil
		},
	}
	return func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		q.Set("login_hint", subject)
		u.RawQuery = q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		resp, err := browser.Do(req)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil || !strings.HasPrefix(loc.String(), AppRedirectURI) {
			return nil, fmt.Errorf("the authorization ended at %s with %s, not a redirect to %s: %s", resp.Request.URL, resp.Status, AppRedirectURI, body)
		}
		cq := loc.Query()
		if e := cq.Get("error"); e != "" {
			return nil, fmt.Errorf("authorization error %s: %s", e, cq.Get("error_description"))
		}
		return &sdkauth.AuthorizationResult{Code: cq.Get("code"), State: cq.Get("state"), Iss: cq.Get("iss")}, nil
	}
}
