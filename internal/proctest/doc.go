// Package proctest lets tests see the processes their code starts: how
// many live children of a process run a program, and when a process they
// stopped is stopped. It reads /proc, so it works on Linux only; tests
// that need it skip elsewhere.
package proctest
