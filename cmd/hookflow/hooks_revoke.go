package main

import (
	"fmt"

	"github.com/hookflow/hookflow/plugins/command/trust"
)

func hooksRevokeVerb() hooksVerb {
	return hooksVerb{name: "revoke", summary: "remove scripts from the trust store", run: runHooksRevoke}
}

const revokeUsage = `hookflow hooks revoke [-store FILE] SCRIPT|SHA256...

Removes from the trust store every entry whose script is SCRIPT, or whose
SHA-256 starts with SHA256 (at least 8 hex digits). A server started
afterwards refuses the hooks that run them; a running server keeps what it
checked at start until the script changes. Exits 1 when an argument
matches nothing.`

func runHooksRevoke(args []string, io stdio) int {
	fs := newFlags("revoke", revokeUsage, io.err)
	var sf storeFlags
	sf.register(fs, false)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	code := exitOK
	err := trust.Update(sf.store, func(s *trust.Store) (bool, error) {
		changed := false
		for _, m := range fs.Args() {
			removed := s.Revoke(m)
			if len(removed) == 0 {
				fmt.Fprintf(io.err, "hookflow hooks revoke: nothing in %s matches %q\n", sf.store, m)
				code = exitFailed
			}
			for _, e := range removed {
				fmt.Fprintf(io.out, "revoked: %s\n", describeIdentity(e.Identity))
				changed = true
			}
		}
		return changed, nil
	})
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks revoke: %v\n", err)
		return exitFailed
	}
	return code
}
