//go:build race

package scope_test

// raceEnabled is true under -race, where allocation counts mean nothing.
const raceEnabled = true
