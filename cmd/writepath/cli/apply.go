package cli

import (
	"strconv"
	"strings"
)

// runApply is `writepath apply`: --server-side (or --client-side=false) runs server-side apply
// (applyserver.go); without it the verb is kubectl's client-side apply (runApplyClientSide,
// applyclient.go). The last of the two flags given decides, as a later flag overrides an
// earlier one; a value that is not a boolean is left for the mode's parser to refuse.
func runApply(e *env, args []string) int {
	serverSide := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "server-side" && name != "client-side") {
			continue
		}
		b := true
		if hasValue {
			parsed, err := strconv.ParseBool(value)
			if err != nil {
				continue
			}
			b = parsed
		}
		serverSide = b == (name == "server-side")
	}
	if serverSide {
		return runApplyServerSide(e, args)
	}
	return runApplyClientSide(e, args)
}
