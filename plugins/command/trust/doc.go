// Package trust is the command-hook plugin's trust store: the file of
// hook identities an operator has reviewed, and the identities
// themselves, by a hook's [Form]: a script's or program's content (and
// the files its line names), a shell line's text, an http or prompt
// hook's definition.
//
// The plugin (plugins/command) checks each hook's [Identity] against the
// [Store] at start and re-checks a hook's files before every run through
// its [Pinned] stamps; "hookflow hooks trust|list|revoke" change the store
// through [Update], [Store.Trust] and [Store.Revoke]. It imports nothing
// of hookflow's, so that any program may read or write a store; within
// hookflow, plugins/command and cmd/hookflow import it.
//
// A Store is a plain value: [Update] serialises changes between processes
// with a lock file; within one process, a Store is not safe for
// concurrent use. A [Pinned] is: its Verify may run from any goroutine.
package trust
