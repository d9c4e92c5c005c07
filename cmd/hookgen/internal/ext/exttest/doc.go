// Package exttest holds what the tests of hookgen's extensions share: a
// position to parse comments at, diagnostics as text, and a registry of
// the core's directives plus one extension's.
package exttest
