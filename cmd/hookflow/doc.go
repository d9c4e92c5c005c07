// Command hookflow holds hookflow's operator tools, one subcommand each.
//
// Usage:
//
//	hookflow <command> [arguments]
//	hookflow help [command]
//
// The commands: hooks manages hooks that run outside the server's Go
// code; gateway serves upstream MCP servers through hookflow's flows,
// hooks and plugins (docs/gateway.md).
//
// Every command prints its own usage with -h. Commands are listed by
// "hookflow help"; each lives in a file of its own in this directory.
//
// Exit status, for every command: 0 when all is well; 1 when the command
// ran and found a problem (a bad configuration, a refused check); 2 for a
// usage error.
package main
