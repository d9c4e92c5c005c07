// Command hookflow holds hookflow's operator tools, one subcommand each.
//
// Usage:
//
//	hookflow <command> [arguments]
//	hookflow help [command]
//
// Every command prints its own usage with -h. Commands are listed by
// "hookflow help"; each lives in a file of its own in this directory.
//
// Exit status, for every command: 0 when all is well; 1 when the command
// ran and found a problem (a bad configuration, a refused check); 2 for a
// usage error.
package main
