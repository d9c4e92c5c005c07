//go:build race

package auth_test

// raceEnabled is true under -race, where allocation counts mean nothing.
const raceEnabled = true
