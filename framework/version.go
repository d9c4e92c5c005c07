package framework

// IsAtLeastVersion0_1_0 is a compile-time guard for the code hookgen
// generates, as connect-go's generated code has: a generated file refers
// to the constant of the oldest hookflow whose framework it compiles
// against (`const _ = framework.IsAtLeastVersion0_1_0`), so that compiled
// against an older framework it fails at that line, which names the
// version it needs, rather than somewhere inside. A release whose framework
// the generated code comes to need adds a constant of its own; none is
// ever removed.
const IsAtLeastVersion0_1_0 = true
