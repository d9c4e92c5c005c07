//go:build race

package flows_test

// raceEnabled is true under -race, where sync.Pool drops items on purpose
// and allocation counts mean nothing.
const raceEnabled = true
