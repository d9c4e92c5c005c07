package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// MailIn is the input of send_mail.
type MailIn struct {
	To   string `json:"to" jsonschema:"the recipient's address"`
	Body string `json:"body" jsonschema:"the message"`
}

// CommandIn is the input of run_command.
type CommandIn struct {
	Command string `json:"command" jsonschema:"a shell command"`
}

// CustomerIn is the input of lookup_customer.
type CustomerIn struct {
	ID string `json:"id" jsonschema:"the customer's ID"`
}

// Customer is the output of lookup_customer.
type Customer struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// addTools adds the server's three tools, which do nothing but say what
// they were given.
func addTools(srv *framework.Server) error {
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "send_mail", Description: "sends a message"},
		func(_ context.Context, _ *mcp.CallToolRequest, in MailIn) (*mcp.CallToolResult, error) {
			return text(fmt.Sprintf("sent to %s: %s", in.To, in.Body)), nil
		}); err != nil {
		return err
	}
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "run_command", Description: "runs a shell command"},
		func(_ context.Context, _ *mcp.CallToolRequest, in CommandIn) (*mcp.CallToolResult, error) {
			return text("ran: " + in.Command), nil
		}); err != nil {
		return err
	}
	return framework.AddToolFunc(srv, &mcp.Tool{Name: "lookup_customer", Description: "looks a customer up"},
		func(_ context.Context, _ *mcp.CallToolRequest, in CustomerIn) (Customer, error) {
			return Customer{ID: in.ID, Name: "Ada", Email: "ada@example.com", Phone: "+44 20 7946 0958"}, nil
		})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
