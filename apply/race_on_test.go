//go:build race

package apply_test

const raceEnabled = true
