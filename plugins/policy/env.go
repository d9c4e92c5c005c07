package policy

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"

	"github.com/hookflow/hookflow/flows"
)

// costLimit bounds the work of one evaluation of an expression that reads
// args, in CEL's cost units (about one per operation, more for string and
// list work): a rule that would loop over a huge argument is stopped and
// denies.
const costLimit = 1_000_000

// env is the CEL environments rules compile in: full declares every
// variable; identity all but args, so that an expression that compiles
// in it does not read the call's arguments and can decide lists.
type env struct {
	full, identity *cel.Env
}

// newEnv returns the environments.
func newEnv() (*env, error) {
	common := []cel.EnvOption{
		ext.NativeTypes(reflect.TypeFor[Principal](), reflect.TypeFor[Client](), reflect.TypeFor[Entity](), ext.ParseStructTags(true)),
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
		cel.ParserExpressionSizeLimit(maxExpression),
		cel.Variable(varPrincipal, cel.ObjectType("policy.Principal")),
		cel.Variable(varClaims, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(varClient, cel.ObjectType("policy.Client")),
		cel.Variable(varEntity, cel.ObjectType("policy.Entity")),
	}
	identity, err := cel.NewEnv(common...)
	if err != nil {
		return nil, fmt.Errorf("policy: the CEL environment: %w", err)
	}
	full, err := identity.Extend(cel.Variable(varArgs, cel.MapType(cel.StringType, cel.DynType)))
	if err != nil {
		return nil, fmt.Errorf("policy: the CEL environment: %w", err)
	}
	return &env{full: full, identity: identity}, nil
}

// expr is a compiled expression.
type expr struct {
	prog cel.Program
	// args is whether the expression reads the call's arguments.
	args bool
}

// compile compiles src, a bool expression, and reports a mistake as a
// CodeInvalid error about field: each of CEL's errors with its line and
// column in the expression.
func (e *env) compile(src, field string) (*expr, error) {
	ast, iss := e.full.Compile(src)
	if iss.Err() != nil {
		var msgs []string
		for _, ce := range iss.Errors() {
			loc := ce.Location
			msgs = append(msgs, fmt.Sprintf("%d:%d: %s", loc.Line(), loc.Column()+1, ce.Message))
		}
		return nil, invalid(field, "the expression does not compile: "+strings.Join(msgs, "; "))
	}
	if ast.OutputType() != cel.BoolType {
		return nil, invalid(field, fmt.Sprintf("the expression is a %s, want a bool", ast.OutputType()))
	}
	_, iss = e.identity.Compile(src)
	args := iss.Err() != nil
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
	if args {
		// Only the arguments come from the caller: their size is the
		// body's, and an expression's work over them is bounded. Tracking
		// the cost doubles an evaluation's allocations, so that rules
		// over the token, the client and the entity do without.
		opts = append(opts, cel.CostLimit(costLimit))
	}
	prog, err := e.full.Program(ast, opts...)
	if err != nil {
		return nil, invalid(field, err.Error())
	}
	return &expr{prog: prog, args: args}, nil
}

// eval evaluates the expression with v; an error (a missing key, a value
// of the wrong type, the cost limit) is returned, and the caller denies.
func (x *expr) eval(v *vars) (bool, error) {
	out, _, err := x.prog.Eval(v)
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("the expression gave a %s, not a bool", out.Type())
	}
	return b, nil
}

// invalid returns the CodeInvalid error of field.
func invalid(field, msg string) error {
	return &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: msg}
}
