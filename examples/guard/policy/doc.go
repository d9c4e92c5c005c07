// Package policy holds the interceptors of examples/guard: a mutator that
// redacts personal data and a validator that refuses destructive commands.
// They are plain functions marked with //hook:mutator and //hook:validator;
// go generate runs hookgen, which lists them in HookflowInterceptors
// (hookgen_gen.go) for a host to serve.
package policy
