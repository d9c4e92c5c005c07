package catalog

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// RegisterHookflow adds the catalog tools to r (the catalog *framework.App).
//
// It is written by hand in the shape hookgen generates (entities sorted by
// type name), so that it can be replaced by directives on the types:
//
//	//mcp:tool name=price                       on Price
//	//mcp:tool name=search readonly idempotent  on Search
func RegisterHookflow(r framework.Registrar) error {
	return errors.Join(
		framework.AddTool(r, framework.Tool[Price, PriceIn, PriceOut]{
			Tool: &mcp.Tool{
				Name:        "price",
				Description: "Price quotes a product's current price.",
			},
			Execute: Price.Execute,
		}),
		framework.AddTool(r, framework.Tool[Search, SearchIn, SearchOut]{
			Tool: &mcp.Tool{
				Name:        "search",
				Description: "Search finds products by name.",
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
			},
			Execute: Search.Execute,
		}),
	)
}
