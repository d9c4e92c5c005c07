//go:build !race

package oauth_test

// raceEnabled is true under -race (see race_on_test.go).
const raceEnabled = false
