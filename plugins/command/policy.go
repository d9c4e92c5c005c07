package command

import (
	"fmt"
	"strconv"
)

// Protocol is how a hook reads its input and writes its answer.
type Protocol uint8

const (
	// Claude is the command-hook contract of Claude Code, Codex and Gemini
	// CLI: the event's fields on stdin; exit 0 with optional JSON on
	// stdout, exit 2 to block with stderr as the reason. The default.
	Claude Protocol = iota
	// OLLM is OLLM CLI's protocol: {"event", "data"} on stdin,
	// {"continue", "systemMessage", "data", "error"} on stdout; each hook's
	// data is merged into the next hook's input.
	OLLM
)

// String returns "claude" or "ollm", as settings write it.
func (p Protocol) String() string {
	switch p {
	case Claude:
		return "claude"
	case OLLM:
		return "ollm"
	}
	return "Protocol(" + strconv.Itoa(int(p)) + ")"
}

// ParseProtocol reads a protocol as settings write it; "" is Claude.
func ParseProtocol(s string) (Protocol, error) {
	switch s {
	case "", "claude":
		return Claude, nil
	case "ollm":
		return OLLM, nil
	}
	return 0, fmt.Errorf("unknown protocol %q (want claude or ollm)", s)
}

// UntrustedPolicy says what happens at Start to a hook whose script is not
// in the trust store (or changed since it was trusted).
type UntrustedPolicy uint8

const (
	// RefuseUntrusted, the default, fails the server's Start, naming each
	// such hook and the command that trusts it.
	RefuseUntrusted UntrustedPolicy = iota
	// SkipUntrusted starts without them: each is logged, with the command
	// that trusts it, and never runs.
	SkipUntrusted
)

// String returns "refuse" or "skip".
func (u UntrustedPolicy) String() string {
	switch u {
	case RefuseUntrusted:
		return "refuse"
	case SkipUntrusted:
		return "skip"
	}
	return "UntrustedPolicy(" + strconv.Itoa(int(u)) + ")"
}
