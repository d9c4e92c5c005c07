//go:build race

package plugins_test

// raceEnabled is true under -race, where sync.Pool drops items on purpose
// and allocation counts mean nothing.
const raceEnabled = true
