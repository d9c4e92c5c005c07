// Package gen renders a package model as hookgen_gen.go with jennifer: an
// explicit registration function (RegisterHookflow), one constructor per
// //mcp:plugin type (<Type>Plugin) and a compile-time staleness guard. The
// output depends only on the model, so it is byte-identical on every run.
package gen
