package bounded_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/writepath/writepath/internal/bounded"
)

func ExampleRead() {
	body := strings.NewReader(strings.Repeat("x", 11))
	_, err := bounded.Read(body, "STDIN", 10)
	var tl *bounded.TooLargeError
	fmt.Println(errors.As(err, &tl), tl.StatusCode(), err)
	// Output: true 413 STDIN: request entity too large: limit is 10
}
