// Package sandbox is how the command-hook plugin runs a hook's process:
// it reads a hook's command line without a shell (by bash's grammar,
// mvdan.cc/sh/v3/syntax) into a [Process] whose program is resolved to an
// absolute path and whose trust [trust.Form] it decides, and it runs that
// process bounded: in its own process group, with a scrubbed environment,
// a timeout, capped output, and everything it started killed and reaped
// when it ends, even children that left the group (by a cgroup v2 of the
// run's own where the server may make one, else by a marker in their
// environment).
//
// A [Sandbox] holds what every hook shares: the allowed interpreters and
// the shell, resolved once, and how runs are reaped. [Sandbox.Parse]
// reads a line at start; [Sandbox.Run] runs a process for one call and
// says what became of it, as a [Result] and, when hookflow stopped it or
// it never started, an [*Error] of a closed set of [Code] values.
//
// It is the plugin's part, split out so that the process rules read on
// their own, and internal so that only plugins/command imports it: it is
// no API. It imports plugins/command/trust (for the forms) and no other
// package of hookflow's. A Sandbox is safe for concurrent runs once
// [Sandbox.Reap] has been called.
package sandbox
