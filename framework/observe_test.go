package framework_test

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// custom is a transport hookflow cannot name.
type custom struct{ mcp.Transport }

// TestTransportOf: a request over HTTP is TransportHTTP; one over the
// transports given to Connect is TransportPipe when they are all
// in-memory, stdio or io streams, else TransportUnknown.
func TestTransportOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		connect []func(mcp.Transport) mcp.Transport // the transports given to Connect, the last one the client's
		http    bool
		want    framework.Transport
	}{
		{"in memory", []func(mcp.Transport) mcp.Transport{nil}, false, framework.TransportPipe},
		{"logged in memory", []func(mcp.Transport) mcp.Transport{func(t mcp.Transport) mcp.Transport { return &mcp.LoggingTransport{Transport: t, Writer: io.Discard} }}, false, framework.TransportPipe},
		{"custom", []func(mcp.Transport) mcp.Transport{func(t mcp.Transport) mcp.Transport { return custom{t} }}, false, framework.TransportUnknown},
		{"in memory and custom", []func(mcp.Transport) mcp.Transport{func(t mcp.Transport) mcp.Transport { return custom{t} }, nil}, false, framework.TransportUnknown},
		{"http", nil, true, framework.TransportHTTP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			got := make(chan framework.Transport, 1)
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "where"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (struct{}, error) {
				got <- srv.TransportOf(req)
				return struct{}{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
			var cs *mcp.ClientSession
			for _, wrap := range tc.connect {
				st, ct := mcp.NewInMemoryTransports()
				var server mcp.Transport = st
				if wrap != nil {
					server = wrap(st)
				}
				if _, err := srv.Connect(ctx, server, nil); err != nil {
					t.Fatal(err)
				}
				var err error
				if cs, err = client.Connect(ctx, ct, nil); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cs.Close() })
			}
			if tc.http {
				h, err := srv.HTTPHandler(nil)
				if err != nil {
					t.Fatal(err)
				}
				hs := httptest.NewServer(h)
				t.Cleanup(hs.Close)
				if cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cs.Close() })
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "where", Arguments: map[string]any{}}); err != nil {
				t.Fatal(err)
			}
			if g := <-got; g != tc.want {
				t.Errorf("TransportOf = %v, want %v", g, tc.want)
			}
		})
	}
	if framework.TransportPipe.String() != "pipe" || framework.TransportHTTP.String() != "http" || framework.TransportUnknown.String() != "unknown" {
		t.Error("Transport.String")
	}
}
