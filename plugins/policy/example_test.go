package policy_test

import (
	"fmt"

	"github.com/hookflow/hookflow/plugins/policy"
)

// A rule hides the ledger upstream's tools from callers outside the
// finance team and refuses their calls with its message; Validate, which
// the gateway's -check runs, reports a mistake in an expression with its
// place in it.
func ExampleConfig_Validate() {
	cfg := policy.Config{Rules: []policy.Rule{{
		Name:    "ledger-for-finance",
		When:    `entity.upstream == "ledger"`,
		Allow:   `"groups" in claims && "finance" in claims.groups`,
		Message: "the ledger tools are for the finance team",
	}}}
	fmt.Println(cfg.Validate())

	cfg.Rules[0].Allow = `"finance" in claim.groups`
	fmt.Println(cfg.Validate())
	// Output:
	// <nil>
	// hookflow: invalid: rules[0].allow: the expression does not compile: 1:14: undeclared reference to 'claim' (in container '')
}
