package intercept

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// interceptor is one discovered interceptor with the invoker's policy
// applied: what the plugin invokes.
type interceptor struct {
	// id is "<server>:<name>": the name of its hooks, and who decided in
	// audit decisions.
	id     string
	conn   *conn
	server int // the host's position in Config.Servers
	desc   wire.Interceptor

	// The effective policy: the Policy's override, else the host's
	// declaration, else the SEP's default.
	mode     wire.Mode
	failOpen bool
	hint     *wire.PriorityHint
	timeout  time.Duration
	hooks    []wire.Hook
	config   map[string]any
}

// matches reports whether the interceptor's effective hooks match event in
// phase.
func (ic *interceptor) matches(event string, phase wire.Phase) bool {
	for _, h := range ic.hooks {
		if h.Phase == phase && wire.MatchAny(h.Events, event) {
			return true
		}
	}
	return false
}

// resolve applies the policy to the descriptors the hosts listed and
// returns the interceptors to invoke, in configuration order (servers as
// configured, each server's interceptors as it listed them). A descriptor
// the SEP does not define (unknown type or mode) is skipped, as the SEP
// requires, and reported in skipped.
func resolve(cfg *Config, conns []*conn, listed [][]wire.Interceptor) (ics []*interceptor, skipped []string, _ error) {
	var errs []error
	used := make([]bool, len(cfg.Policy))
	for si, descs := range listed {
		srv := cfg.Servers[si]
		names := map[string]bool{}
		for _, d := range descs {
			if err := d.Check(); err != nil {
				skipped = append(skipped, fmt.Sprintf("server %q: interceptor %q: %v", srv.Name, d.Name, strings.ReplaceAll(err.Error(), "\n", "; ")))
				continue
			}
			if names[d.Name] {
				errs = append(errs, fmt.Errorf("server %q lists interceptor %q twice (names are unique within a host)", srv.Name, d.Name))
				continue
			}
			names[d.Name] = true
			mode, _ := wire.ParseMode(string(d.Mode))
			ic := &interceptor{id: srv.Name + ":" + d.Name, conn: conns[si], server: si, desc: d,
				mode: mode, failOpen: d.FailOpen, hint: d.PriorityHint, timeout: cfg.Timeout, hooks: d.Hooks}
			disabled := false
			for pi, p := range cfg.Policy {
				if p.Interceptor != d.Name || (p.Server != "" && p.Server != srv.Name) {
					continue
				}
				used[pi] = true
				if err := apply(ic, &p); err != nil {
					errs = append(errs, fmt.Errorf("Config.Policy[%d] (%s): %w", pi, ic.id, err))
				}
				disabled = disabled || p.Disabled
			}
			if !disabled {
				ics = append(ics, ic)
			}
		}
	}
	for pi, p := range cfg.Policy {
		if used[pi] || p.Interceptor == "" {
			continue
		}
		err := fmt.Errorf("Config.Policy[%d]: no server lists an interceptor %q", pi, p.Interceptor)
		var known []string
		for si, descs := range listed {
			for _, d := range descs {
				if p.Server == "" || p.Server == cfg.Servers[si].Name {
					known = append(known, d.Name)
				}
			}
		}
		if best, ok := suggest.Closest(p.Interceptor, known); ok {
			err = fmt.Errorf("%w (did you mean %q?)", err, best)
		}
		errs = append(errs, err)
	}
	// Two hosts may serve an interceptor of one name; a policy that names
	// no server then applies to both.
	return ics, skipped, errors.Join(errs...)
}

// apply sets the fields the policy overrides.
func apply(ic *interceptor, p *Policy) error {
	if p.Mode != "" {
		ic.mode = p.Mode
	}
	if p.FailOpen != nil {
		ic.failOpen = *p.FailOpen
	}
	if p.PriorityHint != nil {
		ic.hint = p.PriorityHint
	}
	if p.Timeout != 0 {
		ic.timeout = p.Timeout
	}
	if p.Config != nil {
		ic.config = p.Config
	}
	if p.Hooks != nil {
		for _, h := range p.Hooks {
			for _, e := range h.Events {
				if !advertises(ic.desc.Hooks, e, h.Phase) {
					return fmt.Errorf("Hooks: the interceptor does not advertise %s on %s; a policy may only narrow its hooks", h.Phase, e)
				}
			}
		}
		ic.hooks = p.Hooks
	}
	return nil
}

// advertises reports whether hooks cover event (a name or a pattern) in
// phase: a pattern is covered only by itself or a wider one.
func advertises(hooks []wire.Hook, event string, phase wire.Phase) bool {
	for _, h := range hooks {
		if h.Phase != phase {
			continue
		}
		for _, a := range h.Events {
			if a == event || a == wire.Wildcard || !wire.IsPattern(event) && wire.Match(a, event) {
				return true
			}
		}
	}
	return false
}

// pass is the interceptors one flow runs in one phase, in run order.
type pass struct {
	flow  flows.ID
	event string
	phase wire.Phase
	// validators run concurrently; their order is only the order of their
	// hooks (configuration order).
	validators []*interceptor
	// mutators run one after another, in the SEP's order: ascending
	// priority hint for the phase, then name (Unicode code points), then
	// the host's position in Config.Servers.
	mutators []*interceptor
}

// passes returns, for every flow of the flow table whose method is a
// context operation, the passes of its request and response phases that
// have interceptors.
func passes(ics []*interceptor) []*pass {
	var out []*pass
	for _, f := range flows.All() {
		event, ok := Event(f.ID)
		if !ok {
			continue
		}
		for _, phase := range []wire.Phase{wire.Request, wire.Response} {
			ps := &pass{flow: f.ID, event: event, phase: phase}
			ps.validators, ps.mutators = split(ics, event, phase)
			if len(ps.validators)+len(ps.mutators) == 0 {
				continue
			}
			out = append(out, ps)
		}
	}
	return out
}

// split returns the interceptors of ics that hook event in phase: the
// validators in configuration order, the mutators in the SEP's order
// ([compareMutators]). Both sides order their passes with it.
func split(ics []*interceptor, event string, phase wire.Phase) (validators, mutators []*interceptor) {
	for _, ic := range ics {
		if !ic.matches(event, phase) {
			continue
		}
		if ic.desc.Type == wire.Mutation {
			mutators = append(mutators, ic)
		} else {
			validators = append(validators, ic)
		}
	}
	slices.SortStableFunc(mutators, func(a, b *interceptor) int {
		return compareMutators(a, b, phase)
	})
	return validators, mutators
}

// compareMutators is the SEP's mutator order, the one place the plugin
// turns priority hints into an order: ascending hint for the phase (a
// missing hint is 0), then name by Unicode code points (Go compares
// strings byte by byte, which for UTF-8 is code point order, whatever the
// locale), then the host's configured position. hookflow priorities run
// the other way (descending); the plugin does not translate hints into
// them: it registers a pass's mutator hooks in this order at one priority,
// and hooks of equal priority run in registration order.
func compareMutators(a, b *interceptor, phase wire.Phase) int {
	return cmp.Or(
		cmp.Compare(a.hint.For(phase), b.hint.For(phase)),
		strings.Compare(a.desc.Name, b.desc.Name),
		cmp.Compare(a.server, b.server),
	)
}
