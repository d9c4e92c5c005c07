package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/console"
)

// A server with the console: its handler needs the console's token.
func Example() {
	srv := framework.NewServer(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	c := console.New(console.Config{Token: "an-example-token-of-32-characters"})
	defer c.Close(context.Background())
	if err := srv.Use(c); err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(c.Handler())
	defer ts.Close()

	for _, tok := range []string{"", "an-example-token-of-32-characters"} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/console/", nil)
		if tok != "" {
			req.SetBasicAuth("operator", tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	// Output:
	// 401 Unauthorized
	// 200 OK
}
