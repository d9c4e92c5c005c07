//go:build race

package oauth_test

// raceEnabled is true under -race, where allocation counts mean nothing.
const raceEnabled = true
