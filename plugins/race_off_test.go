//go:build !race

package plugins_test

// raceEnabled is true under -race (see race_on_test.go).
const raceEnabled = false
