// Package replaydiff names the first difference between a recorded answer and a replayed one,
// for the tests that replay what kube-apiserver answered (cmd/writepath/cli's TestRecordedReplay,
// cluster's TestScenarioReplay) and keep the differences in a golden file.
//
// The model is two decoded JSON values: want (recorded) and got (replayed). FirstDiff walks them
// together, maps by sorted key and lists by index, and names the first place they differ as
// "PATH: GOT, want WANT", "PATH.KEY: unexpected GOT" or "PATH.KEY: missing, want WANT", with
// the values as JSON cut to a width (Short). ManagedFieldsByKey, applied before, takes out of
// the comparison the managedFields order that came from recorded times.
//
// # Usage
//
//	want, got = replaydiff.ManagedFieldsByKey(want, got)
//	if d := replaydiff.FirstDiff("body", want, got, 160); d != "" {
//		golden = append(golden, name+": "+d)
//	}
//
// # Invariants
//
// Neither input is modified; ManagedFieldsByKey's sorted lists are fresh. The result depends on
// the inputs only, and on WRITEPATH_REPLAY_FULL: set in the environment, values are printed
// whole instead of cut to the width.
//
// # Errors
//
// None: "" means equal. A value outside the object model that json.Marshal refuses prints as
// nothing.
package replaydiff
