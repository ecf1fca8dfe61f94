package main

// runApplyClientSide is `writepath apply` without --server-side (kubectl's three-way client-side
// apply). Placeholder until the merge package's client-side apply is wired here: replace this
// function (same signature); runApply in apply.go already dispatches to it.
func runApplyClientSide(e *env, args []string) int {
	f := e.flags("apply --server-side -f CONFIG [flags]",
		`Predict an apply. Only server-side apply (--server-side) is available in this build; see
"writepath apply --server-side --help".`, "")
	f.Bool("server-side", false, "server-side apply")
	if code, ok := f.parse(args); !ok {
		return code
	}
	return e.fail(usagef("client-side apply is not available yet; use --server-side"))
}
