package validation

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // kube-apiserver embeds the time zone database (cmd/kube-apiserver) for CronJob's timeZone

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// CronJob: pkg/registry/batch/cronjob over ValidateCronJobCreate and ValidateCronJobUpdate
// (pkg/apis/batch/validation). The schedule is parsed as the apiserver parses it (robfig/cron/v3
// ParseStandard through parsers.ParseCronScheduleWithPanicRecovery), with the parser's error
// words; a time zone is loaded as the apiserver loads it (the system's database, then the one
// embedded in the binary). The job template is validated as a Job's spec without its selector
// rules: the controller generates the selector.

func validateCronJob(obj map[string]any, _ Options) field.ErrorList {
	spec := mapOf(obj["spec"])
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	errs = append(errs, cronJobSpec(field.NewPath("spec"), spec, nil)...)
	// The controller names a Job NAME-<11 characters>, and Job names are DNS labels.
	if name := str(mapOf(obj["metadata"]), "name"); len(name) > 52 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, "must be no more than 52 characters"))
	}
	return withDeclarative(errs, cronJobDeclarative(spec, nil))
}

// validateCronJobUpdate: the /status strategy validates nothing (the registry's common
// ObjectMeta checks aside).
func validateCronJobUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource == "status" {
		return nil
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, cronJobSpec(field.NewPath("spec"), spec, oldSpec)...)
	return withDeclarative(errs, cronJobDeclarative(spec, oldSpec))
}

// cronJobDeclarative is 1.37's enforced (beta) declarative rule: a schedule is required,
// checked on update only when it changed. It replaces the hand-written Required.
func cronJobDeclarative(spec, oldSpec map[string]any) field.ErrorList {
	s := str(spec, "schedule")
	if s != "" || (oldSpec != nil && str(oldSpec, "schedule") == s) {
		return nil
	}
	return field.ErrorList{field.Required(field.NewPath("spec", "schedule"), "")}
}

// cronJobSpec is validateCronJobSpec (oldSpec nil on create).
func cronJobSpec(p field.Path, spec, oldSpec map[string]any) field.ErrorList {
	var errs field.ErrorList
	schedule := str(spec, "schedule")
	tz, hasTZ := spec["timeZone"].(string)
	if schedule != "" {
		allowTZ := oldSpec != nil && strings.Contains(str(oldSpec, "schedule"), "TZ")
		if err := parseCronSchedule(schedule); err != nil {
			errs = append(errs, field.Invalid(p.Child("schedule"), schedule, err.Error()))
		}
		switch {
		case allowTZ && strings.Contains(schedule, "TZ") && hasTZ:
			errs = append(errs, field.Invalid(p.Child("schedule"), schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
		case !allowTZ && strings.Contains(schedule, "TZ"):
			errs = append(errs, field.Invalid(p.Child("schedule"), schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
		}
	}
	if v, ok := optInt(spec, "startingDeadlineSeconds"); ok {
		errs = append(errs, nonNegative(p.Child("startingDeadlineSeconds"), v)...)
	}
	var oldTZ string
	var oldHasTZ bool
	if oldSpec != nil {
		oldTZ, oldHasTZ = oldSpec["timeZone"].(string)
	}
	if hasTZ && (oldSpec == nil || !oldHasTZ || oldTZ != tz) {
		errs = append(errs, timeZone(p.Child("timeZone"), tz)...)
	}
	switch cp := str(spec, "concurrencyPolicy"); cp {
	case "Allow", "Forbid", "Replace":
	case "":
		errs = append(errs, field.Required(p.Child("concurrencyPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("concurrencyPolicy"), cp, []string{"Allow", "Forbid", "Replace"}))
	}
	errs = append(errs, jobTemplateSpec(p.Child("jobTemplate"), mapOf(spec["jobTemplate"]))...)
	for _, k := range []string{"successfulJobsHistoryLimit", "failedJobsHistoryLimit"} {
		if v, ok := optInt(spec, k); ok {
			errs = append(errs, nonNegative(p.Child(k), v)...)
		}
	}
	return errs
}

// jobTemplateSpec is ValidateJobTemplateSpec: the Job spec's rules, and no selector of its own.
func jobTemplateSpec(p field.Path, tmpl map[string]any) field.ErrorList {
	spec := mapOf(tmpl["spec"])
	popts := NewPodOptions(mapOf(mapOf(spec["template"])["spec"]), nil)
	errs := jobSpecRules(p.Child("spec"), spec, popts)
	if sel, ok := spec["selector"].(map[string]any); ok {
		errs = append(errs, field.Invalid(p.Child("spec", "selector"), selectorValue(sel, true), "`selector` will be auto-generated"))
	}
	if manual, _ := boolean(spec, "manualSelector"); manual {
		errs = append(errs, field.NotSupported(p.Child("spec", "manualSelector"), true, []string{"nil", "false"}))
	}
	return errs
}

// validTimeZoneCharacters is a component of an IANA time zone name, as the apiserver accepts it.
var validTimeZoneCharacters = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// timeZone is validateTimeZone for a timeZone that is set.
func timeZone(p field.Path, tz string) field.ErrorList {
	if tz == "" {
		return field.ErrorList{field.Invalid(p, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZoneCharacters.MatchString(part) {
			return field.ErrorList{field.Invalid(p, tz, fmt.Sprintf("unknown time zone %s", tz))}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(tz, "Local") {
		errs = append(errs, field.Invalid(p, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(tz); err != nil {
		errs = append(errs, field.Invalid(p, tz, err.Error()))
	}
	return errs
}

// cronBounds are a schedule field's range and names (robfig/cron's bounds).
type cronBounds struct {
	min, max uint
	names    map[string]uint
}

var cronFields = []cronBounds{
	{0, 59, nil}, // minute
	{0, 23, nil}, // hour
	{1, 31, nil}, // day of month
	{1, 12, map[string]uint{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{0, 6, map[string]uint{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

// parseCronSchedule is robfig/cron/v3's ParseStandard as the apiserver calls it: nil for a
// schedule it takes, else its error (a panic of the parser recovered as "invalid schedule
// format: ...").
func parseCronSchedule(spec string) error {
	if len(spec) == 0 {
		return fmt.Errorf("empty spec string")
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		i := strings.Index(spec, " ")
		eq := strings.Index(spec, "=")
		if i < 0 {
			// The parser slices spec[eq+1:i] with i = -1.
			return fmt.Errorf("invalid schedule format: runtime error: slice bounds out of range [:-1]")
		}
		if _, err := time.LoadLocation(spec[eq+1 : i]); err != nil {
			return fmt.Errorf("provided bad location %s: %v", spec[eq+1:i], err)
		}
		spec = strings.TrimSpace(spec[i:])
	}
	if strings.HasPrefix(spec, "@") {
		return cronDescriptor(spec)
	}
	fields := strings.Fields(spec)
	if len(fields) != len(cronFields) {
		return fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), fields)
	}
	for i, b := range cronFields {
		for _, expr := range strings.FieldsFunc(fields[i], func(r rune) bool { return r == ',' }) {
			if err := cronRange(expr, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func cronDescriptor(d string) error {
	switch d {
	case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		return nil
	}
	const every = "@every "
	if strings.HasPrefix(d, every) {
		if _, err := time.ParseDuration(d[len(every):]); err != nil {
			return fmt.Errorf("failed to parse duration %s: %s", d, err)
		}
		return nil
	}
	return fmt.Errorf("unrecognized descriptor: %s", d)
}

func cronRange(expr string, b cronBounds) error {
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	var start, end, step uint
	var err error
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end = b.min, b.max
	} else {
		if start, err = cronIntOrName(lowAndHigh[0], b.names); err != nil {
			return err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = cronIntOrName(lowAndHigh[1], b.names); err != nil {
				return err
			}
		default:
			return fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	switch len(rangeAndStep) {
	case 1:
		step = 1
	case 2:
		if step, err = cronInt(rangeAndStep[1]); err != nil {
			return err
		}
		if len(lowAndHigh) == 1 {
			end = b.max
		}
	default:
		return fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < b.min:
		return fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, b.min, expr)
	case end > b.max:
		return fmt.Errorf("end of range (%d) above maximum (%d): %s", end, b.max, expr)
	case start > end:
		return fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	return nil
}

func cronIntOrName(expr string, names map[string]uint) (uint, error) {
	if n, ok := names[strings.ToLower(expr)]; ok {
		return n, nil
	}
	return cronInt(expr)
}

func cronInt(expr string) (uint, error) {
	n, err := strconv.Atoi(expr)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", expr, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, expr)
	}
	return uint(n), nil
}

// cronJobWarnings: on create the name's warning and the job template's (WarningsForJobSpec);
// on update the job template's when the generation moved, and the TZ warning (which names
// spec.spec.schedule, as the strategy writes it).
func cronJobWarnings(obj, old map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	p := field.NewPath("spec", "jobTemplate", "spec")
	tmplSpec := mapOf(mapOf(mapOf(obj["spec"])["jobTemplate"])["spec"])
	if old == nil {
		return append(workloadNameWarning(obj), jobSpecWarnings(p, tmplSpec, nil)...)
	}
	var ws []string
	if generationMoved(obj, old) {
		ws = jobSpecWarnings(p, tmplSpec, mapOf(mapOf(mapOf(old["spec"])["jobTemplate"])["spec"]))
	}
	if strings.Contains(str(mapOf(obj["spec"]), "schedule"), "TZ") {
		ws = append(ws, "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
	}
	return ws
}
