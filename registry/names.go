package registry

import "strings"

// The name generator's alphabet and lengths (k8s.io/apiserver/pkg/storage/names, with
// k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels, no digits that look like letters).
const (
	nameAlphabet           = "bcdfghjklmnpqrstvwxz2456789"
	randomLength           = 5
	maxGeneratedNameLength = 63 - randomLength
)

// GenerateName returns the name the apiserver gives an object created with generateName base:
// the base (cut to 58 characters) and five characters of its alphabet, each chosen by random,
// which returns an int in [0, n). Every World's GenerateName draws its names with it.
func GenerateName(base string, random func(n int) int) string {
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	var b strings.Builder
	b.Grow(len(base) + randomLength)
	b.WriteString(base)
	for i := 0; i < randomLength; i++ {
		b.WriteByte(nameAlphabet[random(len(nameAlphabet))])
	}
	return b.String()
}
