package audit_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
)

type loginIn struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

type loginOut struct {
	Welcome string `json:"welcome"`
}

// Audit tool calls to a slog handler, with the password redacted.
func Example() {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	_ = framework.AddToolFunc(srv, &mcp.Tool{Name: "login"}, func(ctx context.Context, req *mcp.CallToolRequest, in loginIn) (loginOut, error) {
		if in.Password != "secret" {
			return loginOut{}, fmt.Errorf("wrong password for %s", in.User)
		}
		return loginOut{Welcome: in.User}, nil
	})

	// A text handler without the attributes that change on every run.
	handler := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		switch a.Key {
		case slog.TimeKey, "request_id", "duration":
			return slog.Attr{}
		}
		return a
	}})
	aud := audit.New(audit.Config{
		Handler: handler,
		Redact:  []string{"password"},
		Flows:   []flows.ID{flows.ToolsCallTool},
	})
	defer aud.Close(context.Background())
	if err := srv.Use(aud); err != nil {
		panic(err)
	}

	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, pw := range []string{"secret", "guess"} {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "login", Arguments: loginIn{User: "ada", Password: pw}})
	}
	_ = aud.Flush(ctx)
	fmt.Println("dropped:", aud.Dropped())
	// Output:
	// level=INFO msg=audit flow=tools:call-tool entity=login outcome=ok args="{\"password\":\"[REDACTED]\",\"user\":\"ada\"}"
	// level=INFO msg=audit flow=tools:call-tool entity=login outcome=error error="wrong password for ada" args="{\"password\":\"[REDACTED]\",\"user\":\"ada\"}"
	// dropped: 0
}
