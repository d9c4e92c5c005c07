package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The backoff between attempts to open a stream again, the SDK's: 1 s,
// growing 1.5 times per attempt to at most 30 s, each with up to as much
// again of jitter. A retry field of the stream sets the first wait.
const (
	reconnectInitialDelay = time.Second
	reconnectGrowFactor   = 1.5
	reconnectMaxDelay     = 30 * time.Second
)

func reconnectDelay(attempt int) time.Duration {
	if attempt == 0 {
		return 0
	}
	d := time.Duration(float64(reconnectInitialDelay) * math.Pow(reconnectGrowFactor, float64(attempt-1)))
	d = min(d, reconnectMaxDelay)
	return d + rand.N(d)
}

// openGET opens the GET stream, on which the server sends what belongs to
// no request, once the session is initialized; ctx (the initialized
// notification's) bounds the wait for its response's headers, the
// connection's its life. A server without one answers 405; the SDK's
// transport also takes another 4xx, or a body that is no event stream,
// for none.
func (c *clientConn) openGET(ctx context.Context) error {
	gctx, cancel := context.WithCancel(c.ctx)
	stop := context.AfterFunc(ctx, cancel)
	resp, err := c.connectSSE(gctx, "", 0, true)
	if !stop() {
		// ctx ended first: the GET was cancelled.
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		return fmt.Errorf("opening the GET stream: %w", context.Cause(ctx))
	}
	if err != nil {
		cancel()
		if c.ctx.Err() == nil {
			err = fmt.Errorf("opening the GET stream (session %q): %w", c.SessionID(), err)
			c.fail(err)
			return err
		}
		return nil
	}
	if resp.StatusCode == http.StatusMethodNotAllowed ||
		mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" ||
		resp.StatusCode >= 400 && resp.StatusCode < 500 {
		resp.Body.Close()
		cancel()
		return nil
	}
	const summary = "the GET stream"
	if err := c.check(summary, resp); err != nil {
		cancel()
		c.fail(err)
		return err
	}
	go func() {
		defer cancel()
		c.readSSE(gctx, summary, resp, nil)
	}()
	return nil
}

// readSSE reads an event stream: the response to call (sent with ctx),
// which ends with call's response, or the GET stream (call nil). A stream
// that breaks off is opened again with a GET (and Last-Event-ID) as the
// SDK's transport does: a call's only when the server gave its events
// IDs, at most MaxRetries times in a row without a new event ID.
func (c *clientConn) readSSE(ctx context.Context, summary string, resp *http.Response, call *jsonrpc.Request) {
	var prevID string
	noProgress := 0
	for {
		lastID, retry, over := c.processStream(ctx, summary, resp, call)
		if over || lastID == "" && call != nil {
			return
		}
		if lastID != "" && lastID != prevID {
			noProgress, prevID = 0, lastID
		} else if noProgress++; noProgress > c.maxRetries {
			if ctx.Err() == nil {
				c.fail(fmt.Errorf("%s: broke off %d times without a new event (session %q)", summary, noProgress, c.SessionID()))
			}
			return
		}
		next, err := c.connectSSE(ctx, lastID, retry, false)
		if err != nil {
			if ctx.Err() == nil {
				c.fail(fmt.Errorf("%s: opening it again (session %q): %w", summary, c.SessionID(), err))
			}
			return
		}
		if err := c.check(summary, next); err != nil {
			c.fail(err)
			return
		}
		resp = next
	}
}

// processStream reads one HTTP response's events, handing each message
// to Read. It returns the stream's last event ID and retry when the
// stream ended and may be opened again, or over: the call's response
// came, the caller gave up, the connection closed or failed.
func (c *clientConn) processStream(ctx context.Context, summary string, resp *http.Response, call *jsonrpc.Request) (lastID string, retry time.Duration, over bool) {
	answered := false
	defer func() {
		if answered {
			// A stream that ended with the call's response: read what is
			// left, a little and briefly at most, so that its HTTP
			// connection can serve again.
			stop := time.AfterFunc(drainWait, func() { resp.Body.Close() })
			_, _ = io.CopyN(io.Discard, resp.Body, drainBytes)
			stop.Stop()
		}
		resp.Body.Close()
	}()
	p := newSSEParser(resp.Body, c.maxBytes)
	defer p.release()
	for {
		ev, err := p.next()
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return "", 0, true
			case errors.Is(err, errEventTooLarge):
				c.fail(fmt.Errorf("%s: %w", summary, err))
				return "", 0, true
			case err != io.EOF:
				c.noteErr(err)
			}
			break
		}
		if len(ev.data) == 0 || ev.name != "" && ev.name != "message" {
			// A priming event (an ID alone), or an event of another kind.
			continue
		}
		msg, err := DecodeMessage(ev.data)
		if err != nil {
			c.fail(fmt.Errorf("%s: decoding an event: %w", summary, err))
			return "", 0, true
		}
		if !c.deliver(ctx, msg) {
			return "", 0, true
		}
		if r, ok := msg.(*jsonrpc.Response); ok && call != nil && r.ID == call.ID {
			answered = true
			return "", 0, true
		}
	}
	if p.id == "" && call != nil {
		// The call's answer will never come: say so to its caller.
		c.deliver(ctx, &jsonrpc.Response{ID: call.ID, Error: errors.New("request terminated without response")})
	}
	return p.id, p.retry, false
}

// connectSSE opens a stream with a GET (resuming after lastID when set),
// trying MaxRetries times more after a failure to reach the server,
// waiting delay (else the backoff) first unless initial.
func (c *clientConn) connectSSE(ctx context.Context, lastID string, delay time.Duration, initial bool) (*http.Response, error) {
	attempt := 0
	if !initial {
		// The stream was open once: wait before each attempt, so that a
		// server that accepts and drops it is not asked again at once.
		attempt = 1
	}
	wait := reconnectDelay(attempt)
	if delay > 0 {
		wait = delay
	}
	var last error
	for ; attempt <= c.maxRetries; attempt++ {
		timer := time.NewTimer(wait)
		select {
		case <-c.done:
			timer.Stop()
			return nil, errors.New("the connection closed")
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
		if err != nil {
			return nil, err
		}
		c.setHeaders(req.Header, nil)
		if lastID != "" {
			req.Header.Set(lastEventIDHeader, lastID)
		}
		req.Header.Set("Accept", "text/event-stream")
		resp, err := c.hc.Do(req)
		if err != nil {
			c.noteErr(err)
			last, wait = err, reconnectDelay(attempt+1)
			continue
		}
		c.noteStatus(resp.StatusCode)
		return resp, nil
	}
	if last != nil {
		return nil, fmt.Errorf("failed after %d attempts: %w", c.maxRetries, last)
	}
	return nil, fmt.Errorf("not opened again: %d attempts allowed", c.maxRetries)
}

// drainBytes and drainWait bound what is read of a stream after the
// call's response, so that its HTTP connection can serve again.
const (
	drainBytes = 64 << 10
	drainWait  = time.Second
)
