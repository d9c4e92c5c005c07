package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
)

// maxRedirects bounds the redirects an http hook follows, all to its own
// host.
const maxRedirects = 3

// newHTTPClient returns the client of the plugin's http hooks: the
// system's certificate pool (no way to skip verification), no cookies,
// and redirects followed only to the same scheme and host.
func newHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			first := via[0].URL
			if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
				return fmt.Errorf("redirected to %s://%s, another host than the hook's URL: not followed", req.URL.Scheme, req.URL.Host)
			}
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return nil
		},
	}
}

var errHookTimeout = errors.New("the hook's timeout passed")

// run POSTs the event and reads the answer as a command hook's.
func (httpKind) run(h *hook, c *flows.Context, stdin []byte) (decision, error) {
	res, err := h.post(c, stdin)
	if err != nil {
		return decision{}, err
	}
	return h.decode(c, res)
}

// post runs an http hook: it POSTs the event's JSON to the hook's URL and
// returns the answer as a command hook's would be: a 2xx response with an
// empty body or a JSON object is an exit 0 with that stdout. Anything else
// is a failure the hook returns: a non-2xx status (FailHTTPStatus), a body
// of other text (FailBadOutput), a body over the output cap, a connection
// that cannot be made or a redirect to another host (FailStart), the
// timeout, the request's cancellation and the plugin's shutdown.
func (h *hook) post(c *flows.Context, body []byte) (*sandbox.Result, error) {
	ctx, done, err := h.start(c)
	if err != nil {
		return nil, err
	}
	defer done()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.hook.URL, bytes.NewReader(body))
	if err != nil {
		return nil, h.fail(c, FailStart, "cannot make the request: "+err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hookflow-command-hook")
	for _, k := range slices.Sorted(maps.Keys(h.hook.Headers)) {
		req.Header.Set(k, expandHeader(h.hook.Headers[k], h.hook.AllowedEnvVars))
	}
	resp, err := h.p.http.Do(req)
	if err != nil {
		return nil, h.httpFailure(c, ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.proc.MaxOutput)+1))
	if err != nil {
		return nil, h.httpFailure(c, ctx, err)
	}
	res := &sandbox.Result{ExitCode: resp.StatusCode, Stderr: data}
	if len(data) > h.proc.MaxOutput {
		return nil, h.fail(c, FailOutputCap, fmt.Sprintf("answered with more than %d bytes", h.proc.MaxOutput), res)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, h.fail(c, FailHTTPStatus, "answered "+resp.Status, res)
	}
	out := bytes.TrimSpace(data)
	if len(out) > 0 && out[0] != '{' {
		return nil, h.fail(c, FailBadOutput, "answered 2xx with a body that is not the hook JSON", res)
	}
	return &sandbox.Result{Stdout: out}, nil
}

// httpFailure classifies the error of an http hook's request.
func (h *hook) httpFailure(c *flows.Context, ctx context.Context, err error) error {
	switch {
	case context.Cause(ctx) == errHookTimeout:
		return h.fail(c, FailTimeout, fmt.Sprintf("did not answer within its timeout of %v", h.proc.Timeout))
	case c.Context().Err() != nil:
		return h.fail(c, FailCanceled, "the request was cancelled while the hook ran")
	case isClosed(h.p.shutdown):
		return h.fail(c, FailShutdown, "the server is shutting down")
	}
	return h.fail(c, FailStart, "could not be reached: "+err.Error())
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// expandHeader fills in $NAME and ${NAME} in a header value from the
// server's environment, with os.Expand, for the names in allowed only;
// any other name is replaced by nothing, so that a header never carries
// a variable the operator did not list. What names no variable is sent
// as written: a $ at the end or before what cannot start a name, ${}, a
// ${ that no } closes, and a $ before a digit or one of $*#@!?- (a
// shell's special parameters, which os.Expand reads as names: $1 and $$
// stay, and ${1} is written $1).
func expandHeader(v string, allowed []string) string {
	if !strings.Contains(v, "$") {
		return v
	}
	mapping := func(name string) string {
		switch {
		case len(name) == 1 && strings.Contains("$*#@!?-0123456789", name):
			return "$" + name
		case slices.Contains(allowed, name):
			return os.Getenv(name)
		}
		return ""
	}
	// os.Expand drops ${} and a ${ that no } closes, and scans to the
	// end of v for each of the latter: their braces are hidden from it
	// behind a NUL, which neither a header (compile refuses it) nor a
	// variable holds, so that they stay as written, in time linear in
	// len(v).
	k := strings.LastIndexByte(v, '}') + 1
	hidden := strings.ReplaceAll(v[:k], "${}", "$\x00}") + strings.ReplaceAll(v[k:], "{", "\x00")
	return strings.ReplaceAll(os.Expand(hidden, mapping), "\x00", "{")
}
