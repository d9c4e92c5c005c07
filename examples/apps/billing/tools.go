package billing

//go:generate go tool hookgen

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// Ledger holds the invoices. The app's dig container provides one Ledger,
// shared by its tools.
type Ledger struct {
	mu       sync.Mutex
	invoices map[string]*invoice
}

type invoice struct {
	totalCents    int
	refundedCents int
}

// NewLedger returns a ledger with a few invoices.
func NewLedger() *Ledger {
	return &Ledger{invoices: map[string]*invoice{
		"INV-1001": {totalCents: 12000},
		"INV-1002": {totalCents: 4999},
	}}
}

// InvoiceIn is the input of invoice_total and the invoice part of refund.
type InvoiceIn struct {
	Invoice string `json:"invoice" jsonschema:"the invoice number, e.g. INV-1001"`
}

// InvoiceOut is the output of invoice_total.
type InvoiceOut struct {
	Invoice       string `json:"invoice"`
	TotalCents    int    `json:"total_cents"`
	RefundedCents int    `json:"refunded_cents"`
	DueCents      int    `json:"due_cents"`
}

// InvoiceTotal reports what an invoice amounts to, net of refunds.
//
//mcp:tool name=invoice_total readonly
type InvoiceTotal struct{ ledger *Ledger }

// NewInvoiceTotal builds the tool; the ledger comes from the app's container.
func NewInvoiceTotal(l *Ledger) *InvoiceTotal { return &InvoiceTotal{ledger: l} }

// Execute looks the invoice up.
func (t *InvoiceTotal) Execute(ctx context.Context, req *mcp.CallToolRequest, in InvoiceIn) (InvoiceOut, error) {
	t.ledger.mu.Lock()
	defer t.ledger.mu.Unlock()
	inv, ok := t.ledger.invoices[in.Invoice]
	if !ok {
		return InvoiceOut{}, fmt.Errorf("no invoice %q", in.Invoice)
	}
	return InvoiceOut{Invoice: in.Invoice, TotalCents: inv.totalCents, RefundedCents: inv.refundedCents, DueCents: inv.totalCents - inv.refundedCents}, nil
}

// RefundIn is the input of refund.
type RefundIn struct {
	Invoice     string `json:"invoice" jsonschema:"the invoice number, e.g. INV-1001"`
	AmountCents int    `json:"amount_cents" jsonschema:"the amount to refund, in cents"`
	Reason      string `json:"reason,omitempty" jsonschema:"why the refund is made"`
}

// RefundOut is the output of refund.
type RefundOut struct {
	Invoice       string `json:"invoice"`
	RefundedCents int    `json:"refunded_cents"`
	DueCents      int    `json:"due_cents"`
}

// Refund refunds part of an invoice.
//
//mcp:tool name=refund destructive
type Refund struct{ ledger *Ledger }

// NewRefund builds the tool; the ledger comes from the app's container.
func NewRefund(l *Ledger) *Refund { return &Refund{ledger: l} }

// Execute records the refund.
func (t *Refund) Execute(ctx context.Context, req *mcp.CallToolRequest, in RefundIn) (RefundOut, error) {
	t.ledger.mu.Lock()
	defer t.ledger.mu.Unlock()
	inv, ok := t.ledger.invoices[in.Invoice]
	if !ok {
		return RefundOut{}, fmt.Errorf("no invoice %q", in.Invoice)
	}
	if due := inv.totalCents - inv.refundedCents; in.AmountCents > due {
		return RefundOut{}, fmt.Errorf("refund of %d cents exceeds the %d cents still due", in.AmountCents, due)
	}
	inv.refundedCents += in.AmountCents
	return RefundOut{Invoice: in.Invoice, RefundedCents: inv.refundedCents, DueCents: inv.totalCents - inv.refundedCents}, nil
}

// MaxRefundCents is the largest refund the refund tool makes without a
// human: CheckAmount blocks larger ones.
const MaxRefundCents = 10000

// CheckAmount is an embedded hook of Refund: it blocks refunds that are not
// positive or larger than MaxRefundCents before the ledger is touched.
//
//hook:beforeExecute
func (t *Refund) CheckAmount(c flows.ToolCall[RefundIn, RefundOut]) error {
	switch in := c.Input(); {
	case in.AmountCents <= 0:
		return errors.New("the refund amount must be positive")
	case in.AmountCents > MaxRefundCents:
		return fmt.Errorf("refunds over %d cents need a human: ask a supervisor", MaxRefundCents)
	}
	return nil
}
