package validation

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/field"
)

// Job /status: ValidateJobUpdateStatus with the options the status strategy derives from the
// stored and new Jobs (JobManagedBy is GA in 1.37, so the strengthened transition rules always
// apply, each when the status fields it reads changed).

// jobStatusOpts are JobStatusValidationOptions.
type jobStatusOpts struct {
	decreasingSucceeded, invalidCompleted, invalidFailed, completedForNonIndexed, failedForNoBLPI  bool
	failedOverlap, failedWithoutTarget, completeWithoutSCM, finishedWithActive, finishedNoStart    bool
	finishedWithUncounted, startTimeUpdate, completionBeforeStart, notCompleteWithCT, completeNoCT bool
	completeWithFailed, completeWithFailureTarget, moreReadyThanActive, finishedWithTerminating    bool
}

func jobCondFalse(st map[string]any, typ string) bool { return jobConditionIs2(st, typ, "False") }

// jobConditionIs2 is IsConditionTrue/IsConditionFalse: any condition of the type with the status.
func jobConditionIs2(st map[string]any, typ, status string) bool {
	for _, c := range listOf(st["conditions"]) {
		cm := mapOf(c)
		if str(cm, "type") == typ && str(cm, "status") == status {
			return true
		}
	}
	return false
}

func jobFinished(st map[string]any) bool {
	return jobConditionIs2(st, "Complete", "True") || jobConditionIs2(st, "Failed", "True")
}

// optionalEqual compares two optional fields (ptr.Equal): both unset, or both set and equal.
func optionalEqual(a, b map[string]any, key string, eq func(x, y any) bool) bool {
	x, okA := a[key]
	y, okB := b[key]
	okA, okB = okA && x != nil, okB && y != nil
	if okA != okB {
		return false
	}
	return !okA || eq(x, y)
}

func numbersEqual(x, y any) bool { return numberOrZero(x) == numberOrZero(y) }
func stringsEqual(x, y any) bool { s, _ := x.(string); t, _ := y.(string); return s == t }
func timesEqual(x, y any) bool   { return sameTime2(x, y) }

func jobStatusOptions(obj, old map[string]any) jobStatusOpts {
	spec := mapOf(obj["spec"])
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	indexed := str(spec, "completionMode") == "Indexed"
	finishedChanged := jobFinished(oldSt) != jobFinished(st)
	completeChanged := jobCondTrue2(oldSt, "Complete") != jobCondTrue2(st, "Complete")
	failedChanged := jobCondTrue2(oldSt, "Failed") != jobCondTrue2(st, "Failed")
	targetChanged := jobCondTrue2(oldSt, "FailureTarget") != jobCondTrue2(st, "FailureTarget")
	scmChanged := jobCondTrue2(oldSt, "SuccessCriteriaMet") != jobCondTrue2(st, "SuccessCriteriaMet")
	completedChanged := str(oldSt, "completedIndexes") != str(st, "completedIndexes")
	failedIdxChanged := !optionalEqual(oldSt, st, "failedIndexes", stringsEqual)
	activeA, _ := integer(oldSt, "active")
	activeB, _ := integer(st, "active")
	activeChanged := activeA != activeB
	startChanged := !optionalEqual(oldSt, st, "startTime", timesEqual)
	completionChanged := !optionalEqual(oldSt, st, "completionTime", timesEqual)
	uncountedChanged := !uncountedEqual(mapOf(oldSt["uncountedTerminatedPods"]), mapOf(st["uncountedTerminatedPods"]))
	readyChanged := !optionalEqual(oldSt, st, "ready", numbersEqual)
	terminatingChanged := !optionalEqual(oldSt, st, "terminating", numbersEqual)
	suspend, hasSuspend := boolean(spec, "suspend")
	completions, hasCompletions := optInt(spec, "completions")
	parallelism, hasParallelism := optInt(spec, "parallelism")
	suspendedZero := hasSuspend && suspend && hasCompletions && completions == 0
	resuming := jobCondTrue2(oldSt, "Suspended") && jobCondFalse(st, "Suspended")
	return jobStatusOpts{
		decreasingSucceeded:       !indexed || hasCompletions != hasParallelism || completions != parallelism,
		invalidCompleted:          completedChanged,
		invalidFailed:             failedIdxChanged,
		completedForNonIndexed:    completedChanged,
		failedForNoBLPI:           failedIdxChanged,
		failedOverlap:             failedIdxChanged || completedChanged,
		failedWithoutTarget:       failedChanged || failedIdxChanged,
		completeWithoutSCM:        completeChanged || scmChanged,
		finishedWithActive:        finishedChanged || activeChanged,
		finishedNoStart:           (finishedChanged || startChanged) && !suspendedZero,
		finishedWithUncounted:     finishedChanged || uncountedChanged,
		startTimeUpdate:           startChanged && !resuming,
		completionBeforeStart:     startChanged || completionChanged,
		notCompleteWithCT:         completeChanged || completionChanged,
		completeNoCT:              completeChanged || completionChanged,
		completeWithFailed:        completeChanged || failedChanged,
		completeWithFailureTarget: completeChanged || targetChanged,
		moreReadyThanActive:       readyChanged || activeChanged,
		finishedWithTerminating:   finishedChanged || terminatingChanged,
	}
}

func jobCondTrue2(st map[string]any, typ string) bool { return jobConditionIs2(st, typ, "True") }

func uncountedEqual(a, b map[string]any) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	for _, k := range []string{"succeeded", "failed"} {
		x, y := stringList(a[k]), stringList(b[k])
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
	}
	return true
}

// jobStatusUpdate is ValidateJobStatusUpdate (after the metadata update check).
func jobStatusUpdate(obj, old map[string]any) field.ErrorList {
	o := jobStatusOptions(obj, old)
	spec := mapOf(obj["spec"])
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	sp := field.NewPath("status")
	errs := jobStatus(sp, spec, st, o)
	for _, c := range []string{"Failed", "Complete", "FailureTarget"} {
		if jobCondTrue2(oldSt, c) && !jobCondTrue2(st, c) {
			errs = append(errs, field.Invalid(sp.Child("conditions"), field.OmitValueType{}, fmt.Sprintf("cannot disable the terminal %s=True condition", c)))
		}
	}
	failed, _ := integer(st, "failed")
	oldFailed, _ := integer(oldSt, "failed")
	if failed < oldFailed {
		errs = append(errs, field.Invalid(sp.Child("failed"), failed, "cannot decrease the failed counter"))
	}
	succeeded, _ := integer(st, "succeeded")
	oldSucceeded, _ := integer(oldSt, "succeeded")
	if o.decreasingSucceeded && succeeded < oldSucceeded {
		errs = append(errs, field.Invalid(sp.Child("succeeded"), succeeded, "cannot decrease the succeeded counter"))
	}
	if has(st, "completionTime") && has(oldSt, "completionTime") && !sameTime2(st["completionTime"], oldSt["completionTime"]) {
		errs = append(errs, field.Invalid(sp.Child("completionTime"), jobTime(st, "completionTime"), "field is immutable"))
	}
	if o.startTimeUpdate && has(oldSt, "startTime") && !optionalEqual(oldSt, st, "startTime", timesEqual) {
		if suspend, _ := boolean(spec, "suspend"); !suspend {
			errs = append(errs, field.Invalid(sp.Child("startTime"), jobTime(st, "startTime"), "field is immutable for unsuspended job once set"))
		}
	}
	if jobCondTrue2(oldSt, "SuccessCriteriaMet") && !jobCondTrue2(st, "SuccessCriteriaMet") {
		errs = append(errs, field.Invalid(sp.Child("conditions"), field.OmitValueType{}, "cannot disable the SuccessCriteriaMet=True condition"))
	}
	if jobCondTrue2(oldSt, "Complete") && !jobCondTrue2(oldSt, "SuccessCriteriaMet") && jobCondTrue2(st, "SuccessCriteriaMet") {
		errs = append(errs, field.Invalid(sp.Child("conditions"), field.OmitValueType{}, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
	}
	return errs
}

// jobTime is a *metav1.Time status field as a bad value (null when unset).
func jobTime(st map[string]any, key string) json.RawMessage {
	if !has(st, key) {
		return json.RawMessage("null")
	}
	return timeValue(st[key], time.RFC3339)
}

// jobStatus is validateJobStatus.
func jobStatus(p field.Path, spec, st map[string]any, o jobStatusOpts) field.ErrorList {
	var errs field.ErrorList
	active, _ := integer(st, "active")
	for _, k := range []string{"active", "succeeded", "failed"} {
		v, _ := integer(st, k)
		errs = append(errs, nonNegative(p.Child(k), v)...)
	}
	ready, hasReady := optInt(st, "ready")
	if hasReady {
		errs = append(errs, nonNegative(p.Child("ready"), ready)...)
	}
	terminating, hasTerminating := optInt(st, "terminating")
	if hasTerminating {
		errs = append(errs, nonNegative(p.Child("terminating"), terminating)...)
	}
	utp, hasUTP := st["uncountedTerminatedPods"].(map[string]any)
	if hasUTP {
		up := p.Child("uncountedTerminatedPods")
		seen := map[string]bool{}
		for _, k := range []string{"succeeded", "failed"} {
			for i, uid := range stringList(utp[k]) {
				ip := up.Child(k).Index(i)
				switch {
				case uid == "":
					errs = append(errs, field.Invalid(ip, uid, "must not be empty"))
				case seen[uid]:
					errs = append(errs, field.Duplicate(ip, uid))
				default:
					seen[uid] = true
				}
			}
		}
	}
	cp := p.Child("conditions")
	complete, failed := jobCondTrue2(st, "Complete"), jobCondTrue2(st, "Failed")
	target, scm := jobCondTrue2(st, "FailureTarget"), jobCondTrue2(st, "SuccessCriteriaMet")
	if o.completeWithFailed && complete && failed {
		errs = append(errs, field.Invalid(cp, field.OmitValueType{}, "cannot set Complete=True and Failed=true conditions"))
	}
	if o.completeWithFailureTarget && complete && target {
		errs = append(errs, field.Invalid(cp, field.OmitValueType{}, "cannot set Complete=True and FailureTarget=true conditions"))
	}
	hasCT, hasStart := has(st, "completionTime"), has(st, "startTime")
	if o.notCompleteWithCT && hasCT && !complete {
		errs = append(errs, field.Invalid(p.Child("completionTime"), jobTime(st, "completionTime"), "cannot set completionTime when there is no Complete=True condition"))
	}
	if o.completeNoCT && !hasCT && complete {
		errs = append(errs, field.Required(p.Child("completionTime"), "completionTime is required for Complete jobs"))
	}
	if o.completionBeforeStart && hasStart && hasCT {
		ct, _ := timeOrZero(st["completionTime"])
		stt, _ := timeOrZero(st["startTime"])
		if ct.Before(stt) {
			errs = append(errs, field.Invalid(p.Child("completionTime"), jobTime(st, "completionTime"), "must be equal to or after `startTime`"))
		}
	}
	if o.failedWithoutTarget && failed && !target {
		errs = append(errs, field.Invalid(cp, field.OmitValueType{}, "cannot set Failed=True condition without the FailureTarget=true condition"))
	}
	if o.completeWithoutSCM && complete && !scm {
		errs = append(errs, field.Invalid(cp, field.OmitValueType{}, "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
	}
	finished := jobFinished(st)
	if o.finishedWithActive && active > 0 && finished {
		errs = append(errs, field.Invalid(p.Child("active"), active, "active>0 is invalid for finished job"))
	}
	if o.finishedNoStart && !hasStart && finished {
		errs = append(errs, field.Required(p.Child("startTime"), "startTime is required for finished job"))
	}
	if o.finishedWithUncounted && finished && hasUTP && len(listOf(utp["failed"]))+len(listOf(utp["succeeded"])) > 0 {
		errs = append(errs, field.Invalid(p.Child("uncountedTerminatedPods"), uncountedValue(utp), "must be empty for finished job"))
	}
	completions, hasCompletions := optInt(spec, "completions")
	completed := str(st, "completedIndexes")
	failedIdx, hasFailedIdx := st["failedIndexes"].(string)
	_, hasBLPI := optInt(spec, "backoffLimitPerIndex")
	if o.invalidCompleted && hasCompletions {
		if _, err := indexesTotal(completed, int64(int32(completions))); err != nil {
			errs = append(errs, field.Invalid(p.Child("completedIndexes"), completed, "error parsing completedIndexes: "+err.Error()))
		}
	}
	if o.invalidFailed && hasCompletions && hasBLPI && hasFailedIdx {
		if _, err := indexesTotal(failedIdx, int64(int32(completions))); err != nil {
			errs = append(errs, field.Invalid(p.Child("failedIndexes"), failedIdx, "error parsing failedIndexes: "+err.Error()))
		}
	}
	if o.completedForNonIndexed && completed != "" && str(spec, "completionMode") != "Indexed" {
		errs = append(errs, field.Invalid(p.Child("completedIndexes"), completed, "cannot set non-empty completedIndexes when non-indexed completion mode"))
	}
	if o.failedForNoBLPI && !hasBLPI && hasFailedIdx {
		errs = append(errs, field.Invalid(p.Child("failedIndexes"), failedIdx, "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
	}
	if o.failedOverlap && hasCompletions && hasFailedIdx {
		if err := indexesOverlap(completed, failedIdx, int64(int32(completions))); err != nil {
			errs = append(errs, field.Invalid(p.Child("failedIndexes"), failedIdx, err.Error()))
		}
	}
	if o.finishedWithTerminating && hasTerminating && terminating > 0 && finished {
		errs = append(errs, field.Invalid(p.Child("terminating"), terminating, "terminating>0 is invalid for finished job"))
	}
	if o.moreReadyThanActive && hasReady && ready > active {
		errs = append(errs, field.Invalid(p.Child("ready"), ready, "cannot set more ready pods than active"))
	}
	if scm && failed {
		errs = append(errs, field.Invalid(cp, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
	}
	if scm && target {
		errs = append(errs, field.Invalid(cp, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
	}
	if has(spec, "successPolicy") && !scm && complete {
		errs = append(errs, field.Invalid(cp, field.OmitValueType{}, "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
	}
	return errs
}

// uncountedValue is an internal UncountedTerminatedPods as a bad value.
func uncountedValue(utp map[string]any) json.RawMessage {
	list := func(k string) []string {
		if _, ok := utp[k].([]any); !ok {
			return nil
		}
		return stringList(utp[k])
	}
	b, _ := json.Marshal(struct{ Succeeded, Failed []string }{list("succeeded"), list("failed")})
	return b
}

// indexesOverlap is validateFailedIndexesNotOverlapCompleted: the first index both lists hold
// (intervals that do not parse are skipped; the format checks report them).
func indexesOverlap(completed, failed string, completions int64) error {
	if completed == "" || failed == "" {
		return nil
	}
	cs, fs := strings.Split(completed, ","), strings.Split(failed, ",")
	ci, fi := 0, 0
	cx, cy, cErr := indexInterval(cs[0], completions)
	fx, fy, fErr := indexInterval(fs[0], completions)
	for ci < len(cs) && fi < len(fs) {
		switch {
		case cErr != nil:
			ci++
			if ci < len(cs) {
				cx, cy, cErr = indexInterval(cs[ci], completions)
			}
		case fErr != nil:
			fi++
			if fi < len(fs) {
				fx, fy, fErr = indexInterval(fs[fi], completions)
			}
		default:
			if cx <= fy && fx <= cy {
				return fmt.Errorf("failedIndexes and completedIndexes overlap at index: %d", max(cx, fx))
			}
			if cx <= fx {
				ci++
				if ci < len(cs) {
					cx, cy, cErr = indexInterval(cs[ci], completions)
				}
			} else {
				fi++
				if fi < len(fs) {
					fx, fy, fErr = indexInterval(fs[fi], completions)
				}
			}
		}
	}
	return nil
}
