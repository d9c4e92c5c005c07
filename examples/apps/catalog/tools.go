package catalog

//go:generate go tool hookgen

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Product is one catalog entry.
type Product struct {
	SKU  string `json:"sku"`
	Name string `json:"name"`
}

var products = []Product{
	{SKU: "MUG-1", Name: "Enamel mug"},
	{SKU: "MUG-2", Name: "Travel mug"},
	{SKU: "TEE-1", Name: "Hooks T-shirt"},
}

var prices = map[string]int{"MUG-1": 1200, "MUG-2": 1850, "TEE-1": 2400}

// SearchIn is the input of search.
type SearchIn struct {
	Query string `json:"query" jsonschema:"words to look for in product names"`
}

// SearchOut is the output of search.
type SearchOut struct {
	Products []Product `json:"products"`
}

// Search finds products by name.
//
//mcp:tool name=search readonly idempotent
type Search struct{}

// Execute searches the catalog.
func (Search) Execute(ctx context.Context, req *mcp.CallToolRequest, in SearchIn) (SearchOut, error) {
	q := strings.ToLower(strings.TrimSpace(in.Query))
	out := SearchOut{Products: []Product{}}
	for _, p := range products {
		if q != "" && strings.Contains(strings.ToLower(p.Name), q) {
			out.Products = append(out.Products, p)
		}
	}
	return out, nil
}

// PriceIn is the input of price.
type PriceIn struct {
	SKU string `json:"sku" jsonschema:"the product's SKU, e.g. MUG-1"`
}

// PriceOut is the output of price.
type PriceOut struct {
	SKU        string `json:"sku"`
	PriceCents int    `json:"price_cents"`
}

// Price quotes a product's current price.
//
//mcp:tool name=price
type Price struct{}

// Execute quotes the price.
func (Price) Execute(ctx context.Context, req *mcp.CallToolRequest, in PriceIn) (PriceOut, error) {
	cents, ok := prices[in.SKU]
	if !ok {
		return PriceOut{}, fmt.Errorf("no product %q; known: %s", in.SKU, strings.Join(slices.Sorted(maps.Keys(prices)), ", "))
	}
	return PriceOut{SKU: in.SKU, PriceCents: cents}, nil
}
