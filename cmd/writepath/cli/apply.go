package cli

// runApply is `writepath apply`: --server-side runs server-side apply (applyserver.go); without it
// the verb is kubectl's client-side apply (runApplyClientSide, applyclient.go).
func runApply(e *env, args []string) int {
	for _, a := range args {
		switch a {
		case "--server-side", "-server-side", "--server-side=true", "-server-side=true":
			return runApplyServerSide(e, args)
		case "--", "--server-side=false", "-server-side=false":
			return runApplyClientSide(e, args)
		}
	}
	return runApplyClientSide(e, args)
}
