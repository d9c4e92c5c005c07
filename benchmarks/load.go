package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// client speaks raw JSON-RPC over streamable HTTP to one server, as an MCP
// client would: protocol 2025-11-25, a session from initialize when the
// server gives one, answers as JSON or as an SSE stream.
type client struct {
	url  string
	http *http.Client
}

func newClient(url string, conns int) *client {
	t := &http.Transport{MaxIdleConns: conns + 8, MaxIdleConnsPerHost: conns + 8, DisableCompression: true, IdleConnTimeout: time.Minute}
	return &client{url: url, http: &http.Client{Transport: t, Timeout: time.Minute}}
}

// session is one client session (sid is empty on a stateless server).
type session struct {
	c   *client
	sid string
	id  int
}

// open initializes a session; stateful requires the server to give an ID.
func (c *client) open(stateful bool) (*session, error) {
	s := &session{c: c}
	resp, hdr, err := s.post([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`), 0)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if resp.Result == nil {
		return nil, fmt.Errorf("initialize: no result")
	}
	if stateful {
		if s.sid = hdr.Get("Mcp-Session-Id"); s.sid == "" {
			return nil, errors.New("initialize: no Mcp-Session-Id from a stateful server")
		}
	}
	if _, _, err := s.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), -1); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return s, nil
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call makes one tools/call of greet with n and checks the answer.
func (s *session) call(n int) error {
	s.id++
	body := make([]byte, 0, 160)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendInt(body, int64(s.id), 10)
	body = append(body, `,"method":"tools/call","params":{"name":"greet","arguments":{"name":"bench","n":`...)
	body = strconv.AppendInt(body, int64(n), 10)
	body = append(body, `}}}`...)
	resp, _, err := s.post(body, s.id)
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("tools/call: error %d %s", resp.Error.Code, resp.Error.Message)
	}
	r := resp.Result
	if r == nil || r.IsError {
		return fmt.Errorf("tools/call: no result or isError: %+v", r)
	}
	if !bytes.Contains(r.StructuredContent, []byte(`"hello bench"`)) && (len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "hello bench")) {
		return fmt.Errorf("tools/call: unexpected result %+v", r)
	}
	return nil
}

// post sends one message; id is the response to wait for (-1: a
// notification, answered 202 with no body).
func (s *session) post(body []byte, id int) (*rpcResponse, http.Header, error) {
	req, err := http.NewRequest(http.MethodPost, s.c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if id != 0 || s.sid != "" {
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	res, err := s.c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	if id < 0 {
		_, _ = io.Copy(io.Discard, res.Body)
		if res.StatusCode != http.StatusAccepted && res.StatusCode != http.StatusOK {
			return nil, nil, fmt.Errorf("HTTP %d", res.StatusCode)
		}
		return nil, res.Header, nil
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return nil, nil, fmt.Errorf("HTTP %d: %s", res.StatusCode, b)
	}
	want := strconv.Itoa(id)
	var resp rpcResponse
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		// Read events until the response to this request.
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 0, 4096), 1<<20)
		var data []byte
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case bytes.HasPrefix(line, []byte("data:")):
				data = append(data, bytes.TrimSpace(line[5:])...)
			case len(line) == 0 && len(data) > 0:
				resp = rpcResponse{}
				if err := json.Unmarshal(data, &resp); err == nil && string(resp.ID) == want {
					_, _ = io.Copy(io.Discard, res.Body)
					return &resp, res.Header, nil
				}
				data = data[:0]
			}
		}
		if len(data) > 0 {
			if err := json.Unmarshal(data, &resp); err == nil && string(resp.ID) == want {
				return &resp, res.Header, nil
			}
		}
		return nil, nil, fmt.Errorf("SSE stream ended without the response to %s", want)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(b, &resp); err != nil || string(resp.ID) != want {
		return nil, nil, fmt.Errorf("bad JSON answer (want id %s): %s", want, b)
	}
	return &resp, res.Header, nil
}

// result is one measured cell: calls at a concurrency.
type result struct {
	calls    int
	elapsed  time.Duration
	p50, p99 time.Duration
	// genCPU is the CPU time the load generator itself used during the
	// measured calls, and srvCPU the server's: with genCPU/elapsed well
	// under one core, the generator is not what limits calls/s.
	genCPU, srvCPU time.Duration
}

// srvPerCall is the server's CPU time per call: unlike calls/s it does
// not depend on what else the machine runs.
func (r result) srvPerCall() time.Duration { return r.srvCPU / time.Duration(max(r.calls, 1)) }

func (r result) perSecond() float64 { return float64(r.calls) / r.elapsed.Seconds() }

// load opens conc sessions and makes calls tools/calls through them, after
// a warm-up of warm calls each.
func load(url string, stateful bool, conc, calls, warm int, srvCPU func() time.Duration) (result, error) {
	c := newClient(url, conc)
	defer c.http.CloseIdleConnections()
	sessions := make([]*session, conc)
	for i := range sessions {
		s, err := c.open(stateful)
		if err != nil {
			return result{}, err
		}
		sessions[i] = s
	}
	var n atomic.Int64
	n.Store(int64(time.Now().UnixNano() % 1e9)) // arguments never repeat across runs: the cache misses
	run := func(total int) ([]time.Duration, time.Duration, error) {
		var left atomic.Int64
		left.Store(int64(total))
		lat := make([][]time.Duration, conc)
		errs := make([]error, conc)
		var wg sync.WaitGroup
		start := time.Now()
		for i, s := range sessions {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					t := time.Now()
					if err := s.call(int(n.Add(1))); err != nil {
						errs[i] = err
						left.Store(0)
						return
					}
					lat[i] = append(lat[i], time.Since(t))
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		if err := errors.Join(errs...); err != nil {
			return nil, 0, err
		}
		return slices.Concat(lat...), elapsed, nil
	}
	if _, _, err := run(warm * conc); err != nil {
		return result{}, fmt.Errorf("warm-up: %w", err)
	}
	gen0, srv0 := selfCPU(), srvCPU()
	lat, elapsed, err := run(calls)
	if err != nil {
		return result{}, err
	}
	gen1, srv1 := selfCPU(), srvCPU()
	slices.Sort(lat)
	return result{calls: len(lat), elapsed: elapsed, p50: quantile(lat, 0.50), p99: quantile(lat, 0.99),
		genCPU: gen1 - gen0, srvCPU: srv1 - srv0}, nil
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// selfCPU is the user and system CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
