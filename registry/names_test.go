package registry_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/registry"
)

func TestGenerateName(t *testing.T) {
	assert.Equal(t, "web-bbbbb", registry.GenerateName("web-", func(int) int { return 0 }))
	assert.Equal(t, "web-99999", registry.GenerateName("web-", func(n int) int { return n - 1 }))
}

// The apiserver's generateName suffix: five characters of its alphabet.
func ExampleGenerateName() {
	i := 0
	fmt.Println(registry.GenerateName("web-", func(n int) int { i += 7; return i % n }))
	// Output: web-ks4cl
}
