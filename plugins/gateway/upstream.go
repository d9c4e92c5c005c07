package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"

	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// upstream is one mounted upstream server: its main session (which lists
// entities, hears list changes and serves shared calls), the sessions of
// client sessions, its health and what it mounted.
type upstream struct {
	g   *Gateway
	cfg Upstream
	// rt is the HTTP transport of a URL upstream; tok its tokens when it
	// has a TokenSource.
	rt  http.RoundTripper
	tok *ups.Tokens
	srv *framework.Server
	reg framework.Registrar
	log *slog.Logger

	mu         sync.Mutex
	state      State
	since      time.Time
	err        error
	reconnects int
	main       *conn
	// pool holds the upstream sessions of client sessions and the shared
	// ones of other protocol versions than the main session's, and the
	// requests in flight through each; it is called under mu too.
	pool ups.Pool[sessionKey, *conn]
	// listed is the last listing; mounted what is registered on the
	// server, by exposed name (tools, prompts) or URI (resources).
	listed   listing
	mainKeys map[entityKey]string // listed's entities (see keyed)
	// templates are listed's URI templates as clients see them, compiled
	// once per listing (see listMain).
	templates []*regexp.Regexp
	mounted   map[entityKey]string // → JSON of the upstream's description
	// taskLogged holds the tools logged as left out for being tasks.
	taskLogged sync.Map

	// changed holds, per upstream session (nil for the main session)
	// whose lists changed since the watcher last refreshed, the kinds
	// that changed. Every session is refreshed: two sessions that change
	// at once (an upstream that tells all its sessions) must not make
	// the watcher refresh only one.
	changed map[*conn][]string
	// shared holds, for each resource URI, the client sessions
	// subscribed to it on the main session; own the URIs each client
	// session subscribed to on its own upstream session (see subscribe).
	shared map[string]map[*mcp.ServerSession]bool
	own    map[*mcp.ServerSession]map[string]bool

	// dropped counts the upstream's notifications dropped for slow
	// client sessions.
	dropped atomic.Uint64
	// warnedAllow is set once filter checked the AllowTools patterns.
	warnedAllow atomic.Bool

	mountMu sync.Mutex // one mount or refresh at a time
	kick    chan struct{}
	done    chan struct{}
}

// defaultVersion is the protocol version the gateway asks an upstream for
// unless a client or the configuration asks for another: the latest on
// which an upstream may send its client requests and notifications.
const defaultVersion = "2025-11-25"

// sessionKey is the key of an upstream session in upstream.pool: a
// client session's own (ss), or the one shared on a protocol version.
type sessionKey struct {
	ss      *mcp.ServerSession
	version string
}

// slot is an upstream session of upstream.pool.
type slot = ups.Slot[*conn]

func newUpstream(g *Gateway, cfg Upstream) *upstream {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ResetTimeoutOnProgress && cfg.MaxTotalTimeout == 0 {
		cfg.MaxTotalTimeout = DefaultMaxTotalTimeout
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	var rt http.RoundTripper
	var tok *ups.Tokens
	if cfg.URL != "" {
		if cfg.TokenSource != nil {
			tok = ups.NewTokens(cfg.Name, cfg.TokenSource, func(err error) error { return &TokenError{Upstream: cfg.Name, Err: err} })
		}
		rt = ups.HTTPTransport(cfg.Token, cfg.Header, tok)
	}
	u := &upstream{g: g, cfg: cfg, rt: rt, tok: tok, mounted: map[entityKey]string{}, shared: map[string]map[*mcp.ServerSession]bool{}, own: map[*mcp.ServerSession]map[string]bool{},
		kick: make(chan struct{}, 1), done: make(chan struct{}), since: time.Now()}
	u.pool.Max = cfg.MaxSessions
	return u
}

// start connects the main session and lists what the upstream serves.
func (u *upstream) start(ctx context.Context, srv *framework.Server, reg framework.Registrar) error {
	u.srv, u.reg = srv, reg
	u.log = srv.Logger().With(slog.String("upstream", u.cfg.Name))
	u.pool.Log = u.log
	c, l, err := u.connectMain(ctx)
	if err != nil {
		u.setState(StateDown, err)
		return fmt.Errorf("gateway: upstream %q: %w", u.cfg.Name, err)
	}
	u.mu.Lock()
	u.main = c
	u.listMain(l)
	u.mu.Unlock()
	u.setState(StateUp, nil)
	return nil
}

// connectMain connects a main session and lists the upstream's entities,
// within ConnectTimeout.
func (u *upstream) connectMain(ctx context.Context) (*conn, listing, error) {
	ctx, cancel := context.WithTimeout(ctx, u.cfg.ConnectTimeout)
	defer cancel()
	c, err := u.connect(ctx, nil, nil, cmp.Or(u.cfg.ProtocolVersion, defaultVersion), 0)
	if err != nil {
		return nil, listing{}, err
	}
	l, err := c.list(ctx)
	if err != nil {
		c.CS.Close()
		return nil, listing{}, fmt.Errorf("listing: %w", err)
	}
	return c, l, nil
}

// keepWatching runs watch until the gateway closes, again after a panic
// (recovered and logged), so that the upstream is still reconnected.
func (u *upstream) keepWatching() {
	u.backoff().Keep(u.log, "watching upstream "+u.cfg.Name, u.done, u.watch)
}

// backoff is the wait between two attempts to reconnect the upstream.
func (u *upstream) backoff() ups.Backoff {
	return ups.Backoff{Min: u.cfg.MinBackoff, Max: u.cfg.MaxBackoff}
}

// watch waits for the main session to end and reconnects with backoff,
// until the gateway closes; it also runs the refreshes list changes ask
// for.
func (u *upstream) watch() {
	for {
		u.mu.Lock()
		c := u.main
		u.mu.Unlock()
		ended := make(chan error, 1)
		ups.Go(u.log, "waiting for an upstream session", func() { ended <- c.CS.Wait() })
	serving:
		for {
			select {
			case <-u.done:
				return
			case <-u.kick:
				u.mu.Lock()
				changed := u.changed
				u.changed = nil
				u.mu.Unlock()
				// The main session first, then the others in the order
				// they opened: a refresh of one never hides another's.
				froms := slices.SortedFunc(maps.Keys(changed), func(a, b *conn) int {
					return cmp.Compare(cmp.Or(a, c).seq, cmp.Or(b, c).seq)
				})
				for _, from := range froms {
					u.refresh(cmp.Or(from, c), changed[from])
				}
			case err := <-ended:
				if h := u.health(); h.State == StateDown && h.Err != nil {
					err = h.Err // why suspect closed it
				} else if err == nil {
					err = errors.New("the connection closed")
				}
				u.setState(StateDown, err)
				u.log.Warn("gateway: upstream down; reconnecting", slog.Any("err", err))
				u.dropSessions()
				break serving
			}
		}
		if !u.reconnect() {
			return
		}
	}
}

// reconnect connects a new main session, with backoff (see
// [ups.Backoff]). It refreshes the mounted entities and returns true once
// connected, false when the gateway closes.
func (u *upstream) reconnect() bool {
	return u.backoff().Retry(u.done, u.reconnectOnce, func(err error, next time.Duration) {
		u.setState(StateDown, err)
		u.log.Warn("gateway: reconnecting failed", slog.Any("err", err), slog.Duration("retry_in", next))
	})
}

// reconnectOnce connects a new main session and lists and mounts what
// the upstream serves, or fails.
func (u *upstream) reconnectOnce() error {
	u.setState(StateConnecting, u.health().Err)
	c, l, err := u.connectMain(context.Background())
	if err != nil {
		return err
	}
	u.mu.Lock()
	u.main = c
	u.listMain(l)
	u.reconnects++
	u.mu.Unlock()
	u.setState(StateUp, nil)
	u.log.Info("gateway: upstream reconnected")
	u.resubscribe(c)
	u.remount()
	return nil
}

// refresh lists the upstream's entities again and mounts the changes;
// kinds are the kinds of entity the upstream said changed, of which the
// server's clients are told even when the listing shows no change.
func (u *upstream) refresh(c *conn, kinds []string) {
	ctx, cancel := context.WithTimeout(context.Background(), u.cfg.ConnectTimeout)
	defer cancel()
	if !c.waitReady(ctx) {
		// The session that said its lists changed did so while it
		// connected and never did: there is nothing to list through.
		return
	}
	l, err := c.list(ctx)
	if err != nil {
		u.log.Warn("gateway: listing after a list change", slog.Any("err", err))
		return
	}
	before := u.keysOf(c)
	u.setListing(c, l)
	if len(u.cfg.Select) > 0 {
		// A selection's clients are told of changes to what it selects
		// only: another endpoint's entities are none of theirs.
		kinds = changedKinds(kinds, before, u.keysOf(c))
	}
	u.g.forceTell(u, c, kinds)
	u.remount(kinds...)
}

// keysOf returns the keys of what c lists, with their descriptions.
func (u *upstream) keysOf(c *conn) map[entityKey]string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if c.ss == nil {
		return u.mainKeys
	}
	return c.keys
}

// changedKinds returns those of kinds whose entities differ between a
// and b.
func changedKinds(kinds []string, a, b map[entityKey]string) []string {
	return slices.DeleteFunc(slices.Clone(kinds), func(kind string) bool {
		for _, m := range [2][2]map[entityKey]string{{a, b}, {b, a}} {
			for k, d := range m[0] {
				if listKind(k.kind) == kind {
					if o, ok := m[1][k]; !ok || o != d {
						return false
					}
				}
			}
		}
		return true
	})
}

// listChanged asks the watcher to refresh the mounted entities, listing
// them through c, the upstream session that said its lists changed: the
// main one, or a client's (a stdio upstream runs a process per client
// session, and the process that changed is the one to ask).
func (u *upstream) listChanged(c *conn, kind string) {
	u.mu.Lock()
	if u.changed == nil {
		u.changed = map[*conn][]string{}
	}
	if !slices.Contains(u.changed[c], kind) {
		u.changed[c] = append(u.changed[c], kind)
	}
	u.mu.Unlock()
	select {
	case u.kick <- struct{}{}:
	default:
	}
}

func (u *upstream) setState(s State, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.state != s {
		u.since = time.Now()
	}
	u.state, u.err = s, err
}

func (u *upstream) health() Health {
	u.mu.Lock()
	defer u.mu.Unlock()
	return Health{Upstream: u.cfg.Name, State: u.state, Since: u.since, Err: u.err, Reconnects: u.reconnects, Dropped: u.dropped.Load()}
}

func (u *upstream) close() {
	u.mu.Lock()
	if u.state == StateClosed {
		u.mu.Unlock()
		return
	}
	u.state, u.since = StateClosed, time.Now()
	close(u.done)
	main := u.main
	u.mu.Unlock()
	closing := u.dropSessions()
	if main != nil {
		main.CS.Close()
	}
	// A stdio upstream's process must be gone before the gateway's is:
	// one the gateway left running would outlive it.
	closing.Wait()
}

// dropSessions closes the client sessions' upstream sessions, in the
// background; the group is done when they are closed (a stdio upstream's
// process has ended).
func (u *upstream) dropSessions() *sync.WaitGroup { return u.pool.Drop() }

// session returns the upstream session that serves a request of client
// session ss on protocol version version: in stateful mode the client
// session's own; else the main one, or for a client on another protocol
// version than the main session's, a shared session on that version
// (falling back to the main one when the upstream refuses it). It fails
// at once when the upstream is not up.
func (u *upstream) session(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra, caps *mcp.ClientCapabilities, version string) (*conn, error) {
	u.mu.Lock()
	if u.state != StateUp {
		h := Health{Upstream: u.cfg.Name, State: u.state, Err: u.err}
		u.mu.Unlock()
		return nil, unavailable(h)
	}
	main := u.main
	if u.cfg.ProtocolVersion != "" {
		version = u.cfg.ProtocolVersion
	}
	key := sessionKey{ss: ss}
	if u.sharedFor(ss, extra) {
		if version == "" || version == main.Version() {
			u.mu.Unlock()
			return main, nil
		}
		key, ss = sessionKey{version: version}, nil
	}
	s, seq, ok := u.pool.Take(key, ss != nil)
	u.mu.Unlock()
	if !ok {
		u.log.Warn("gateway: an upstream's client sessions are at their bound; a client's request was refused",
			slog.String("upstream", u.cfg.Name), slog.Int("max_sessions", u.cfg.MaxSessions))
		return nil, fmt.Errorf("upstream %q serves as many client sessions as it may (%d): try again later", u.cfg.Name, u.cfg.MaxSessions)
	}
	if seq > 0 {
		u.open(ctx, s, key, ss, caps, version, seq)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c, err := s.Result()
	if err != nil {
		if ss == nil {
			// The upstream refuses the client's version: the main session
			// serves the request.
			return main, nil
		}
		// The cause is the operator's (an address, a token endpoint's
		// answer), and no answer of the upstream to send the client.
		ups.Go(u.log, "checking an upstream", func() { u.suspect(nil) })
		u.log.Warn("gateway: opening an upstream session for a client session", slog.Any("err", err))
		return nil, fmt.Errorf("upstream %q could not open a session for this client; the gateway's log has the cause", u.cfg.Name)
	}
	return c, nil
}

// open opens s, the upstream session of client session ss (nil: a
// shared one) under key, the seq-th; once it is opened, it is listed for
// ss, and forgotten when it ends or failed.
func (u *upstream) open(ctx context.Context, s *slot, key sessionKey, ss *mcp.ServerSession, caps *mcp.ClientCapabilities, version string, seq uint64) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), u.cfg.ConnectTimeout)
	c, err := u.connect(cctx, ss, caps, cmp.Or(version, defaultVersion), seq)
	if err == nil && ss != nil {
		// What this session offers its client may differ from what the
		// main session lists (see views.go).
		if l, err := c.list(cctx); err != nil {
			u.log.Warn("gateway: listing a client session's upstream session; the client sees what the gateway's own lists", slog.Any("err", err))
		} else {
			u.setListing(c, l)
		}
	}
	cancel()
	s.Opened(c, err)
	if err != nil {
		u.pool.Forget(key, s)
		return
	}
	if ss != nil {
		u.remount()
		// A replaced session: the client's subscriptions go on.
		ups.Go(u.log, "subscribing a client's new upstream session", func() { u.resubscribe(c) })
	}
	// The client session's end ends its upstream session, and the
	// upstream session's end forgets it.
	var client func() error
	if ss != nil {
		client = ss.Wait
	}
	u.pool.Hold(key, s, client, func(forgotten bool) { u.ended(s, forgotten) })
}

// rootsChanged tells the upstream session of client session ss, in the
// background, that its roots changed; one still opening is told once open.
func (u *upstream) rootsChanged(ss *mcp.ServerSession) {
	s := u.pool.Get(sessionKey{ss: ss})
	if s == nil {
		return
	}
	ups.Go(u.log, "telling an upstream the roots changed", func() {
		<-s.Done()
		if c, ok := s.Conn(); ok {
			c.RootsChanged()
		}
	})
}

// ended is told that the session of s ended, and forgotten when s was
// still the pool's under its key.
func (u *upstream) ended(s *slot, forgotten bool) {
	u.mu.Lock()
	listed := listedConn(s) != nil
	u.mu.Unlock()
	if forgotten && listed {
		// What only that session offered leaves the server.
		u.remount()
	}
}

// suspect checks, after a call failed for a reason other than the
// upstream's answer, that the main session still answers; when it does
// not, it is closed, and the watcher marks the upstream down and
// reconnects. failed is the upstream session the call went through (nil
// when none): when it is another one (a client session's) and not known
// to be over, it is checked too, and closed when it does not answer (the
// stdio upstream's process of that client session is frozen, say), so
// that the client session's next call opens a new one.
func (u *upstream) suspect(failed *conn) {
	u.mu.Lock()
	c := u.main
	up, closed := u.state == StateUp, u.state == StateClosed
	u.mu.Unlock()
	if failed != nil && failed != c && !closed {
		failed.Check(u.cfg.ConnectTimeout)
	}
	if !up || c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), u.cfg.ConnectTimeout)
	defer cancel()
	if err := c.CS.Ping(ctx, nil); err != nil {
		u.log.Warn("gateway: upstream does not answer a ping", slog.Any("err", err))
		// Down now: closing the session may itself wait on the upstream
		// (an HTTP session ends with a request).
		u.mu.Lock()
		if u.main == c && u.state == StateUp {
			u.state, u.since, u.err = StateDown, time.Now(), fmt.Errorf("no answer to a ping: %w", err)
		}
		u.mu.Unlock()
		c.CS.Close()
	}
}

// unavailable is the error of a call to an upstream that is not up: its
// state, not its error, which is the operator's (in the log and Health).
// An upstream the gateway is reconnecting to is down to a client, between
// two attempts or during one: [Health] tells them apart for the operator.
func unavailable(h Health) error {
	state := h.State
	if state == StateConnecting {
		state = StateDown
	}
	return fmt.Errorf("upstream %q is unavailable (%s)", h.Upstream, state)
}
