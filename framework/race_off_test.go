//go:build !race

package framework_test

const raceEnabled = false
