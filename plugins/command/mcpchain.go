package command

import (
	"context"
	"slices"
	"sync/atomic"
)

// chain is the tools whose calls wait on an mcp_tool hook's call, carried
// in the context of the calls it makes, outermost first; loop is shared
// by a whole chain and set when a hook of it refuses a loop, so that
// every hook of the chain fails as a loop too.
type chain struct {
	tools []string
	loop  *atomic.Bool
}

type chainKey struct{}

// chainOf returns the chain of ctx: empty for a client's own call.
func chainOf(ctx context.Context) chain {
	ch, _ := ctx.Value(chainKey{}).(chain)
	if ch.loop == nil {
		ch.loop = new(atomic.Bool)
	}
	return ch
}

// with returns ch with tool (a tool whose call now waits) at its end;
// "" (no tool: another event) leaves it as it is.
func (ch chain) with(tool string) chain {
	if tool == "" {
		return ch
	}
	return chain{tools: append(slices.Clip(ch.tools), tool), loop: ch.loop}
}

// has reports whether tool's call is in ch.
func (ch chain) has(tool string) bool { return slices.Contains(ch.tools, tool) }

func withChain(ctx context.Context, ch chain) context.Context {
	return context.WithValue(ctx, chainKey{}, ch)
}
