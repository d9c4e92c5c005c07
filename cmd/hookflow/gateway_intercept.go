package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/hookflow/hookflow/internal/yamlconf"
	"github.com/hookflow/hookflow/plugins/gateway"

	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// interceptConfig is the intercept plugin's settings: the interceptor
// hosts, the invoker's policy and the bounds.
type interceptConfig struct {
	intercept.Config
}

// Validate reports nothing: decoding the section checked it.
func (interceptConfig) Validate() error { return nil }

// interceptSpec is the intercept plugin's, configured by the section as
// the command decodes it until intercept.Config carries yaml tags.
func interceptSpec() gateway.PluginSpec {
	return gateway.Plugin("intercept", func(c interceptConfig) *intercept.Plugin { return intercept.New(c.Config) })
}

// intercept reads the intercept plugin's settings, checking what the
// plugin checks when it is attached, but at file:line:col; what needs the
// hosts (a policy naming an interceptor no host lists) is checked when the
// gateway starts.
func (d *decoder) intercept(n *yaml.Node) interceptConfig {
	c := interceptConfig{}
	var servers *yaml.Node
	// policyServers are the server names policies give, where they give
	// them.
	type named struct {
		server string
		at     *yaml.Node
	}
	var policyServers []named
	errs := d.Errs()
	d.Mapping(n, "intercept", map[string]func(*yaml.Node){
		"servers": func(n *yaml.Node) { c.Servers, servers = d.interceptServers(n), n },
		"policy": func(n *yaml.Node) {
			type key struct{ server, interceptor string }
			seen := map[key]bool{}
			for _, item := range d.Seq(n) {
				p, at := d.interceptPolicy(item)
				if p.Interceptor == "" {
					c.Policy = append(c.Policy, p)
					continue
				}
				if k := (key{p.Server, p.Interceptor}); seen[k] {
					d.Errorf(at, "two policies name interceptor %q", at.Value)
				} else {
					seen[k] = true
				}
				if p.Server != "" {
					policyServers = append(policyServers, named{p.Server, at})
				}
				c.Policy = append(c.Policy, p)
			}
		},
		"timeout":         func(n *yaml.Node) { c.Timeout = d.Duration(n) },
		"connect_timeout": func(n *yaml.Node) { c.ConnectTimeout = d.Duration(n) },
		"retry_after":     func(n *yaml.Node) { c.RetryAfter = d.Duration(n) },
		"explain":         func(n *yaml.Node) { c.Explain = d.Bool(n) },
	})
	// A misspelt key is reported as such, not as missing.
	if servers == nil && d.Errs() == errs && (n.Kind == yaml.MappingNode || n.Tag == "!!null") {
		d.Errorf(n, "intercept needs at least one interceptor host under servers")
	}
	var names []string
	for _, s := range c.Servers {
		names = append(names, s.Name)
	}
	for _, p := range policyServers {
		if !slices.Contains(names, p.server) {
			d.Errorf(p.at, "policy for %q: no interceptor host is named %q%s", p.at.Value, p.server, didYouMean(p.server, names))
		}
	}
	return c
}

// interceptServers reads the interceptor hosts: each a streamable HTTP url
// (with its bearer token) or a command.
func (d *decoder) interceptServers(n *yaml.Node) []intercept.Server {
	items := d.Seq(n)
	if n.Kind == yaml.SequenceNode && len(items) == 0 {
		d.Errorf(n, "intercept needs at least one interceptor host under servers")
	}
	var out []intercept.Server
	for _, item := range items {
		var s intercept.Server
		var token, command, dir *yaml.Node
		setToken := func(n *yaml.Node, v string) {
			if token != nil {
				d.Errorf(yamlconf.KeyOf(item, n), "%s and %s both give the host's bearer token: keep one", token.Value, yamlconf.KeyOf(item, n).Value)
				return
			}
			s.Token, token = v, yamlconf.KeyOf(item, n)
		}
		d.Mapping(item, "an interceptor host", map[string]func(*yaml.Node){
			"name":        func(n *yaml.Node) { s.Name = d.Str(n) },
			"url":         func(n *yaml.Node) { s.URL = d.url(n) },
			"token":       func(n *yaml.Node) { setToken(n, d.Str(n)) },
			"token_env":   func(n *yaml.Node) { setToken(n, d.Env(n)) },
			"command":     func(n *yaml.Node) { s.Command, command = d.Strs(n), n },
			"env":         func(n *yaml.Node) { s.Env = d.environ(n) },
			"inherit_env": func(n *yaml.Node) { s.InheritEnv = d.envNames(n) },
			"dir":         func(n *yaml.Node) { s.Dir, dir = d.Str(n), n },
		})
		switch {
		case s.Name == "":
			d.Errorf(item, "an interceptor host needs a name")
		case strings.Contains(s.Name, ":"):
			d.Errorf(item, "interceptor host %q: a name cannot hold \":\", which separates it from an interceptor's name (guard:no-destructive-commands)", s.Name)
		case slices.ContainsFunc(out, func(o intercept.Server) bool { return o.Name == s.Name }):
			d.Errorf(item, "two interceptor hosts are named %q", s.Name)
		case len(s.Command) == 0 && s.URL == "":
			d.Errorf(item, "interceptor host %q needs a command or a url", s.Name)
		case len(s.Command) > 0 && s.URL != "":
			d.Errorf(item, "interceptor host %q has a command and a url: give one", s.Name)
		case len(s.Command) > 0 && token != nil:
			d.Errorf(item, "interceptor host %q: %s is for url hosts", s.Name, token.Value)
		case command != nil && len(s.Command) > 0 && s.Command[0] == "":
			d.Errorf(command, "interceptor host %q: the program is empty", s.Name)
		}
		if s.Dir != "" && !filepath.IsAbs(s.Dir) {
			s.Dir = filepath.Join(filepath.Dir(d.File), s.Dir)
		}
		if d.Host && (len(s.Command) == 0 || s.Command[0] != "") {
			d.checkProgram(fmt.Sprintf("interceptor host %q", s.Name), s.Command, s.Dir, command, dir)
		}
		out = append(out, s)
	}
	return out
}

// interceptPolicy reads the invoker's policy for one interceptor, and
// returns where its interceptor is named.
func (d *decoder) interceptPolicy(item *yaml.Node) (intercept.Policy, *yaml.Node) {
	var p intercept.Policy
	var named *yaml.Node
	errs := d.Errs()
	d.Mapping(item, "a policy", map[string]func(*yaml.Node){
		"interceptor": func(n *yaml.Node) {
			named = n
			name := d.Str(n)
			server, ic, ok := strings.Cut(name, ":")
			if ok {
				p.Server, p.Interceptor = server, ic
			} else {
				p.Interceptor = name
			}
			if n.Kind == yaml.ScalarNode && (p.Interceptor == "" || ok && p.Server == "") {
				d.Errorf(n, "want an interceptor such as guard:no-destructive-commands (host:interceptor) or no-destructive-commands (on any host), got %q", name)
				p.Interceptor = ""
			}
		},
		"disabled":      func(n *yaml.Node) { p.Disabled = d.Bool(n) },
		"fail_open":     func(n *yaml.Node) { b := d.Bool(n); p.FailOpen = &b },
		"mode":          func(n *yaml.Node) { p.Mode = d.policyMode(n) },
		"priority_hint": func(n *yaml.Node) { p.PriorityHint = d.priorityHint(n) },
		"timeout":       func(n *yaml.Node) { p.Timeout = d.Duration(n) },
		"hooks": func(n *yaml.Node) {
			p.Hooks = []wire.Hook{}
			for _, h := range d.Seq(n) {
				p.Hooks = append(p.Hooks, d.interceptHook(h))
			}
			if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
				d.Errorf(n, "hooks narrows the interceptor's hooks to those listed: list at least one, or leave the interceptor out with disabled: true")
			}
		},
		"config": func(n *yaml.Node) {
			if n.Kind != yaml.MappingNode {
				d.Errorf(n, "config must be a mapping of keys to values")
				return
			}
			var m map[string]any
			if err := n.Decode(&m); err != nil {
				d.Errorf(n, "config: %v", err)
				return
			}
			if _, err := json.Marshal(m); err != nil {
				d.Errorf(n, "config must be JSON: %v", err)
				return
			}
			p.Config = m
		},
	})
	if named == nil && d.Errs() == errs && (item.Kind == yaml.MappingNode || item.Tag == "!!null") {
		d.Errorf(item, "a policy needs an interceptor, such as guard:no-destructive-commands")
	}
	return p, named
}

// policyMode reads the mode a policy gives an interceptor: active or
// audit, what intercept.Policy.Mode accepts. wire.ParseMode also reads
// "enforce", the name older drafts of the SEP gave active, because a host
// may still declare it; a policy is the deployment's own, written now, so
// it uses the SEP's names.
func (d *decoder) policyMode(n *yaml.Node) wire.Mode {
	s := d.Str(n)
	if n.Kind != yaml.ScalarNode {
		return ""
	}
	switch m := wire.Mode(s); m {
	case wire.Active, wire.Audit:
		return m
	}
	hint := didYouMean(s, []string{string(wire.Active), string(wire.Audit)})
	if s == "enforce" {
		hint = ` ("enforce" is the older drafts' name of active)`
	}
	d.Errorf(n, "want mode active or audit, got %q%s", s, hint)
	return ""
}

// priorityHint reads a mutator's priority hint: a number for both phases,
// or {request: n, response: m}.
func (d *decoder) priorityHint(n *yaml.Node) *wire.PriorityHint {
	hint := func(n *yaml.Node) int32 {
		if !d.Scalar(n, "an integer") {
			return 0
		}
		v, err := strconv.ParseInt(n.Value, 10, 32)
		if err != nil {
			d.Errorf(n, "want an integer, got %q", n.Value)
		}
		return int32(v)
	}
	if n.Kind == yaml.MappingNode {
		var req, resp int32
		d.Mapping(n, "priority_hint", map[string]func(*yaml.Node){
			"request":  func(n *yaml.Node) { req = hint(n) },
			"response": func(n *yaml.Node) { resp = hint(n) },
		})
		return wire.HintPerPhase(req, resp)
	}
	return wire.Hint(hint(n))
}

// interceptHook reads one of the hooks a policy narrows an interceptor
// to: events in a phase.
func (d *decoder) interceptHook(n *yaml.Node) wire.Hook {
	var h wire.Hook
	given := false
	d.Mapping(n, "a hook", map[string]func(*yaml.Node){
		"events": func(n *yaml.Node) { h.Events = d.Strs(n) },
		"phase": func(n *yaml.Node) {
			given = true
			if s := d.Str(n); n.Kind == yaml.ScalarNode {
				ph, err := wire.ParsePhase(s)
				if err != nil {
					d.Errorf(n, "%v", err)
				}
				h.Phase = ph
			}
		},
	})
	if (!given || len(h.Events) == 0) && n.Kind == yaml.MappingNode {
		d.Errorf(n, "a hook needs events and a phase, such as {events: [tools/call], phase: request}")
	}
	return h
}
