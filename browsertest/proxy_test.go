package browsertest_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxy stands between the browser and the console, as an operator's
// reverse proxy does, so that a test can drop the live stream for real:
// drop closes every connection, browser's and console's, and refuses
// new ones for a while, as a proxy that reloads. It notes the
// Last-Event-ID of each stream the browser opens.
type proxy struct {
	addr  string
	rp    *httputil.ReverseProxy
	mu    sync.Mutex
	srv   *http.Server
	opens []streamOpen
}

// streamOpen is one request of the live stream, as the proxy saw it.
type streamOpen struct {
	lastEventID, after string
}

// startProxy proxies a free address to the console at target.
func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	p := &proxy{addr: freeAddr(t), rp: httputil.NewSingleHostReverseProxy(u)}
	p.listen(t)
	t.Cleanup(func() { p.close() })
	return p
}

// url returns the console's URL through the proxy.
func (p *proxy) url() string { return "http://" + p.addr + "/console" }

func (p *proxy) listen(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	p.mu.Lock()
	p.srv = srv
	p.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("proxy: %v", err)
		}
	}()
}

func (p *proxy) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/events") {
		p.mu.Lock()
		p.opens = append(p.opens, streamOpen{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")})
		p.mu.Unlock()
	}
	p.rp.ServeHTTP(w, r)
}

// drop closes every connection and refuses new ones for outage, then
// listens again on the same address.
func (p *proxy) drop(t *testing.T, outage time.Duration) {
	t.Helper()
	p.close()
	time.Sleep(outage)
	p.listen(t)
}

func (p *proxy) close() {
	p.mu.Lock()
	srv := p.srv
	p.mu.Unlock()
	_ = srv.Close()
}

// streams returns the stream requests seen so far.
func (p *proxy) streams() []streamOpen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]streamOpen(nil), p.opens...)
}
