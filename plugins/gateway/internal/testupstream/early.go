package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// earlyListChanged wraps the HTTP handler next so that its answer to an
// initialize request is an event stream that first says the tools
// changed, then, after a pause, carries the answer: a client hears the
// list change while it is still connecting, as servers do that register
// tools for the capabilities their client declared.
func earlyListChanged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &m) != nil || m.Method != "initialize" {
			next.ServeHTTP(w, r)
			return
		}
		rec := &buffered{header: http.Header{}, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.code)
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		// The pause leaves the client time to act on the notification
		// before its session is connected.
		time.Sleep(300 * time.Millisecond)
		out := rec.body.Bytes()
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			out = append(append([]byte("event: message\ndata: "), bytes.TrimSpace(out)...), '\n', '\n')
		}
		_, _ = w.Write(out)
	})
}

// buffered is a ResponseWriter that keeps the answer, to be sent later.
type buffered struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (b *buffered) Header() http.Header { return b.header }

func (b *buffered) WriteHeader(code int) { b.code = code }

func (b *buffered) Write(p []byte) (int, error) { return b.body.Write(p) }
