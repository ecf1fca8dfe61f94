package validation_test

import (
	"fmt"

	"github.com/writepath/writepath/internal/validation"
)

func ExampleIsQualifiedName() {
	fmt.Println(validation.IsQualifiedName("example.com/ready"))
	fmt.Println(validation.IsQualifiedName("/ready"))
	// Output:
	// []
	// [prefix part must be non-empty]
}
