package policy

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
)

// Config configures the policy plugin; it is also the plugin's section of
// a configuration file (the yaml names below). The zero value has no
// rules and allows everything.
type Config struct {
	// Rules decide, in order, what each caller may see and call; see the
	// package doc. None by default.
	Rules []Rule `yaml:"rules"`
	// Conceal makes an entity a rule denies look as if it did not exist:
	// left out of lists, and its call, get or read fails as for an
	// unknown name, with no flow run. The default, false, leaves it out
	// of lists and refuses its call with the rule's Message, which tells
	// the model and the user why. Rules that read args refuse with their
	// Message either way: the entity is listed.
	Conceal bool `yaml:"conceal"`
	// Priority of the plugin's hooks; 0 means priority.Auth-10: after the
	// auth plugin has checked the token's scopes, before rate limits.
	Priority int `yaml:"priority"`
	// Logger receives the plugin's logs (denials at debug level, with the
	// rule; a rule that fails to evaluate, at warning level); nil uses the
	// server's logger. Go only.
	Logger *slog.Logger `yaml:"-"`
}

// Rule is one rule of [Config.Rules]: for the entities and calls When
// selects, Allow must hold.
type Rule struct {
	// Name names the rule in logs, in the audit trail's decided_by and in
	// the default Message; required, unique.
	Name string `yaml:"name"`
	// When is a CEL expression selecting what the rule governs, such as
	// `entity.upstream == "ledger"`; "" governs every entity and call.
	When string `yaml:"when"`
	// Allow is a CEL expression that must be true for the caller to see
	// and call what When selects, such as
	// `"finance" in claims.groups`; required.
	Allow string `yaml:"allow"`
	// Message is the reason the client reads when a call is refused;
	// "" means `denied by policy rule "<name>"`.
	Message string `yaml:"message"`
}

// maxExpression bounds the length of an expression, in bytes.
const maxExpression = 4096

// Validate reports what is wrong with the configuration: nil, or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose Field
// is the setting's path in a configuration file ("rules[0].allow"). Each
// expression is compiled: a syntax error, an unknown variable or field,
// or an expression that is not a bool is reported with its place in the
// expression.
func (c Config) Validate() error {
	_, _, err := c.compile()
	return err
}

// compile checks c and compiles its rules, in order: identity holds those
// that do not read args, args those that do. err is what Validate
// reports; with it, the rules are nil.
func (c Config) compile() (identity, args []rule, err error) {
	env, err := newEnv()
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	seen := map[string]int{}
	for i, r := range c.Rules {
		at := "rules[" + strconv.Itoa(i) + "]"
		switch {
		case strings.TrimSpace(r.Name) == "":
			errs = append(errs, invalid(at+".name", "required: a name for the rule, shown in logs and refusals"))
		default:
			if j, dup := seen[r.Name]; dup {
				errs = append(errs, invalid(at+".name", fmt.Sprintf("%q is also the name of rules[%d]", r.Name, j)))
			}
			seen[r.Name] = i
		}
		ru := rule{name: r.Name, message: cmp.Or(r.Message, `denied by policy rule "`+r.Name+`"`)}
		if strings.TrimSpace(r.Allow) == "" {
			errs = append(errs, invalid(at+".allow", "required: a CEL expression that must be true to see and call what the rule governs"))
		} else if ru.allow, err = env.compile(r.Allow, at+".allow"); err != nil {
			errs = append(errs, err)
		}
		if r.When != "" {
			if ru.when, err = env.compile(r.When, at+".when"); err != nil {
				errs = append(errs, err)
			}
		}
		switch {
		case errs != nil:
			// A mistake so far: the rules are not returned, and ru.allow
			// may be nil.
		case ru.allow.args || (ru.when != nil && ru.when.args):
			args = append(args, ru)
		default:
			identity = append(identity, ru)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return identity, args, nil
}
