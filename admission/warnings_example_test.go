package admission_test

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/admission"
)

// ResponseWarnings gives the Warning headers a client reads: repeats and
// texts a header cannot carry are dropped, and once the texts pass 4096 runes
// in all, each is cut to 256 runes.
func ExampleResponseWarnings() {
	raw := []string{"replicas should be odd", "replicas should be odd", "multi\nline"}
	fmt.Printf("%q\n", admission.ResponseWarnings(raw))

	long := []string{"short"}
	for i := 0; i < 14; i++ {
		long = append(long, fmt.Sprintf("w%02d %s", i, strings.Repeat("x", 300)))
	}
	for _, w := range admission.ResponseWarnings(long)[:3] {
		fmt.Println(len([]rune(w)), w[:min(8, len(w))])
	}
	// Output:
	// ["replicas should be odd"]
	// 5 short
	// 256 w00 xxxx
	// 256 w01 xxxx
}
