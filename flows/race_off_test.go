//go:build !race

package flows_test

const raceEnabled = false
