//go:build race

package audit

// raceEnabled is true under -race, where allocation counts mean nothing.
const raceEnabled = true
