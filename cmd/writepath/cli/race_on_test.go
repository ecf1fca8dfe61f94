//go:build race

package cli

// raceEnabled: the race detector slows every allocation down several times; the hostile
// catalogue then runs its large inputs through fewer verbs.
const raceEnabled = true
