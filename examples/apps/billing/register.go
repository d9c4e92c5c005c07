package billing

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// RegisterHookflow adds the billing tools and their embedded hooks to r (the
// billing *framework.App). The app must provide a *Ledger (NewLedger).
//
// It is written by hand in the shape hookgen generates (entities sorted by
// type name), so that it can be replaced by directives on the types:
//
//	//mcp:tool name=invoice_total readonly      on InvoiceTotal
//	//mcp:tool name=refund destructive          on Refund
//	//hook:beforeExecute                        on Refund.CheckAmount
func RegisterHookflow(r framework.Registrar) error {
	return errors.Join(
		framework.AddTool(r, framework.Tool[*InvoiceTotal, InvoiceIn, InvoiceOut]{
			Tool: &mcp.Tool{
				Name:        "invoice_total",
				Description: "InvoiceTotal reports what an invoice amounts to, net of refunds.",
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			},
			New:     NewInvoiceTotal,
			Execute: (*InvoiceTotal).Execute,
		}),
		framework.AddTool(r, framework.Tool[*Refund, RefundIn, RefundOut]{
			Tool: &mcp.Tool{
				Name:        "refund",
				Description: "Refund refunds part of an invoice.",
				Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)},
			},
			New:     NewRefund,
			Execute: (*Refund).Execute,
			Hooks: []framework.Hook[*Refund, flows.ToolCall[RefundIn, RefundOut]]{
				{Stage: stages.BeforeExecute, Name: "CheckAmount", Fn: (*Refund).CheckAmount},
			},
		}),
	)
}
