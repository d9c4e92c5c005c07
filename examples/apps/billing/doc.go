// Package billing is the billing app of examples/apps: invoices and refunds.
//
// Its tools are plain Go types declared with //mcp: and //hook: directives;
// go generate writes hookgen_gen.go, whose RegisterHookflow adds them to the
// billing app.
//
// The billing app's answers change as refunds are made, so it gets the audit
// plugin and no cache: every call executes and every call leaves an event.
package billing
