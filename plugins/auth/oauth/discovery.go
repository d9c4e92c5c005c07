package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// maxDocument bounds the metadata, JWKS and introspection documents read
// from the authorization server.
const maxDocument = 1 << 20

// issuerMetadata is what the server needs of the authorization server's
// metadata (RFC 8414, or OpenID Connect Discovery).
type issuerMetadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// discovery fetches the issuer's metadata once and keeps it; failures are
// retried at most once per KeyRefreshInterval.
type discovery struct {
	rs *ResourceServer

	mu       sync.Mutex
	meta     *issuerMetadata
	lastTry  time.Time
	lastErr  error
	fetching chan struct{}
}

// get returns the metadata, fetching it if needed; it waits for a fetch
// in progress no longer than ctx allows.
func (d *discovery) get(ctx context.Context) (*issuerMetadata, error) {
	d.mu.Lock()
	if d.meta != nil {
		m := d.meta
		d.mu.Unlock()
		return m, nil
	}
	ch := d.fetching
	if ch == nil {
		if !d.lastTry.IsZero() && d.rs.now().Sub(d.lastTry) < d.rs.cfg.KeyRefreshInterval {
			err := d.lastErr
			d.mu.Unlock()
			return nil, err
		}
		d.lastTry = d.rs.now()
		ch = make(chan struct{})
		d.fetching = ch
		go d.fetch(ch)
	}
	d.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.meta != nil {
		return d.meta, nil
	}
	return nil, d.lastErr
}

func (d *discovery) fetch(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), d.rs.cfg.FetchTimeout)
	defer cancel()
	m, err := discover(ctx, d.rs.client, d.rs.cfg.Issuer)
	if err == nil && d.rs.cfg.JWKSURL != "" {
		m.JWKSURI = d.rs.cfg.JWKSURL
	}
	if err != nil {
		err = &UnavailableError{What: "metadata", Err: err}
		d.rs.cfg.Logger.Warn("oauth: discovering the authorization server failed", slog.String("issuer", d.rs.cfg.Issuer), slog.Any("error", err))
	}
	d.mu.Lock()
	d.meta, d.lastErr, d.fetching = m, err, nil
	d.mu.Unlock()
	close(done)
}

// metadataURLs returns where the issuer's metadata may be, in the order
// the MCP specification has clients try them: RFC 8414 first, then OpenID
// Connect Discovery, path-inserted then path-appended for an issuer with a
// path.
func metadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, err
	}
	path := strings.TrimSuffix(u.Path, "/")
	at := func(p string) string {
		v := *u
		v.Path, v.RawPath = p, ""
		return v.String()
	}
	if path == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}, nil
	}
	return []string{
		at("/.well-known/oauth-authorization-server" + path),
		at("/.well-known/openid-configuration" + path),
		at(path + "/.well-known/openid-configuration"),
	}, nil
}

// discover fetches the issuer's metadata from the first well-known URL
// that has it, and checks that it is the issuer's own (RFC 8414 §3.3).
func discover(ctx context.Context, c *http.Client, issuer string) (*issuerMetadata, error) {
	urls, err := metadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	var tried []string
	for _, u := range urls {
		var m issuerMetadata
		status, err := getJSON(ctx, c, u, &m)
		if err != nil {
			if status >= 400 && status < 500 {
				tried = append(tried, fmt.Sprintf("%s: %d", u, status))
				continue
			}
			return nil, err
		}
		if m.Issuer != issuer {
			return nil, fmt.Errorf("%s names issuer %q, want %q (RFC 8414 §3.3: they must be identical)", u, m.Issuer, issuer)
		}
		for _, e := range []struct{ name, v string }{{"jwks_uri", m.JWKSURI}, {"introspection_endpoint", m.IntrospectionEndpoint}} {
			if e.v == "" {
				continue
			}
			if err := checkURL(e.v); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", u, e.name, err)
			}
		}
		return &m, nil
	}
	return nil, fmt.Errorf("no authorization server metadata for issuer %q (%s)", issuer, strings.Join(tried, "; "))
}

// getJSON GETs u and decodes its JSON body into v. It returns the HTTP
// status when there was one.
func getJSON(ctx context.Context, c *http.Client, u string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, decodeJSON(resp, u, v)
}

// decodeJSON decodes a 200 response's JSON body into v.
func decodeJSON(resp *http.Response, u string, v any) error {
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocument))
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	if len(body) > maxDocument {
		return fmt.Errorf("%s: the document is larger than %d bytes", u, maxDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	return nil
}

// errNoRedirects is what the default HTTP client answers to a redirect.
var errNoRedirects = errors.New("the authorization server redirected; oauth follows no redirects")
