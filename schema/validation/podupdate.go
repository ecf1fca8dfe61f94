package validation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/internal/value"
)

// ValidatePodUpdate's rules proper to an update: images may change, activeDeadlineSeconds may
// be set or lowered, tolerations added, scheduling gates removed; any other change of the spec
// is refused with "pod updates may not change fields other than ...".

var updatablePodSpecFields = strings.Join([]string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}, ",")

// validatePodSpecUpdate is ValidatePodUpdate after validatePodMetadataAndSpec.
func validatePodSpecUpdate(spec, oldSpec map[string]any, opts PodOptions) field.ErrorList {
	sp := field.NewPath("spec")
	var errs field.ErrorList
	for _, key := range []string{"containers", "initContainers"} {
		n, o := listOf(spec[key]), listOf(oldSpec[key])
		if len(n) != len(o) {
			return append(errs, field.Forbidden(sp.Child(key), "pod updates may not add or remove containers"))
		}
		for i, c := range n {
			img := str(mapOf(c), "image")
			if img == "" {
				errs = append(errs, field.Required(sp.Child(key).Index(i).Child("image"), ""))
			}
			if len(strings.TrimSpace(img)) != len(img) {
				errs = append(errs, field.Invalid(sp.Child(key).Index(i).Child("image"), img, "must not have leading or trailing whitespace"))
			}
		}
	}
	ad := sp.Child("activeDeadlineSeconds")
	if v, ok := integer(spec, "activeDeadlineSeconds"); ok {
		if v < 0 || v > 1<<31-1 {
			return append(errs, field.Invalid(ad, v, inclusiveRange(0, 1<<31-1)))
		}
		if o, ok := integer(oldSpec, "activeDeadlineSeconds"); ok && o < v {
			return append(errs, field.Invalid(ad, v, "must be less than or equal to previous value"))
		}
	} else if _, ok := integer(oldSpec, "activeDeadlineSeconds"); ok {
		errs = append(errs, field.Invalid(ad, nil, "must not update from a positive integer to nil value"))
	}
	errs = append(errs, onlyAddedTolerations(sp.Child("tolerations"), listOf(spec["tolerations"]), listOf(oldSpec["tolerations"]))...)
	errs = append(errs, onlyDeletedSchedulingGates(sp.Child("schedulingGates"), listOf(spec["schedulingGates"]), listOf(oldSpec["schedulingGates"]))...)
	if specEqual(spec, oldSpec) {
		return errs
	}
	munged := make(map[string]any, len(spec))
	for k, v := range spec {
		munged[k] = v
	}
	for _, key := range []string{"containers", "initContainers"} {
		n, o := listOf(spec[key]), listOf(oldSpec[key])
		if len(n) == 0 {
			continue
		}
		out := make([]any, len(n))
		for i := range n {
			c := make(map[string]any, len(mapOf(n[i])))
			for k, v := range mapOf(n[i]) {
				c[k] = v
			}
			if img, ok := mapOf(o[i])["image"]; ok {
				c["image"] = img
			} else {
				delete(c, "image")
			}
			out[i] = c
		}
		munged[key] = out
	}
	for _, key := range []string{"activeDeadlineSeconds", "schedulingGates", "tolerations"} {
		if v, ok := oldSpec[key]; ok {
			munged[key] = v
		} else {
			delete(munged, key)
		}
	}
	if og, ok := integer(oldSpec, "terminationGracePeriodSeconds"); ok && og < 0 {
		if ng, ok := integer(munged, "terminationGracePeriodSeconds"); ok && ng == 1 {
			munged["terminationGracePeriodSeconds"] = oldSpec["terminationGracePeriodSeconds"]
		}
	}
	if len(listOf(oldSpec["schedulingGates"])) > 0 {
		// Gated pods may add to nodeSelector and change node affinity: not modelled beyond
		// accepting those changes.
		munged["nodeSelector"] = oldSpec["nodeSelector"]
		if aff, ok := munged["affinity"].(map[string]any); ok || has(oldSpec, "affinity") {
			na := mapOf(oldSpec["affinity"])["nodeAffinity"]
			c := map[string]any{}
			for k, v := range aff {
				c[k] = v
			}
			if na != nil {
				c["nodeAffinity"] = na
			} else {
				delete(c, "nodeAffinity")
			}
			munged["affinity"] = c
		}
	}
	if !specEqual(munged, oldSpec) {
		errs = append(errs, field.Forbidden(sp, fmt.Sprintf("pod updates may not change fields other than %s\n%s", updatablePodSpecFields, podSpecDiff(oldSpec, munged))))
	}
	return errs
}

// specEqual compares two pod specs as Semantic.DeepEqual compares the Go values they decode
// into, for what a JSON round trip leaves: null, empty lists and empty maps read as absent.
// It is value.Equal(normalize(a), normalize(b)) without building the normalized copies (an
// update of a pod compares its whole spec at least once).
func specEqual(a, b map[string]any) bool { return normalizedEqual(a, b, 0) }

// kept reports whether normalize keeps v as a map entry: not null, not an empty list.
func kept(v any) bool {
	if v == nil {
		return false
	}
	l, ok := v.([]any)
	return !ok || len(l) != 0
}

// normalizedEqual is value.Equal of normalize(a) and normalize(b), depth levels down.
func normalizedEqual(a, b any, depth int) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || depth >= value.MaxDepth {
			return false
		}
		n := 0
		for k, xv := range x {
			if !kept(xv) {
				continue
			}
			n++
			yv, ok := y[k]
			if !ok || !kept(yv) || !normalizedEqual(xv, yv, depth+1) {
				return false
			}
		}
		for _, yv := range y {
			if kept(yv) {
				n--
			}
		}
		return n == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || depth >= value.MaxDepth {
			return false
		}
		for i := range x {
			if !normalizedEqual(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	}
	return value.Equal(a, b)
}

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n := normalize(e)
			if n == nil {
				continue
			}
			if l, ok := n.([]any); ok && len(l) == 0 {
				continue
			}
			out[k] = n
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// podSpecDiff is what the apiserver appends to a refused pod update: apimachinery's
// diff.Diff(oldPod.Spec, mungedPodSpec), a unified diff with three lines of context of the two
// internal PodSpecs as JSON indented by one space (Go field names, every field present), made
// by github.com/pmezard/go-difflib as the apiserver makes it, so the hunks and line numbers are
// the same.
//
// The diff's cost grows faster than the specs (about n^1.4 here: 24 ms for a container with
// 1,000 changed ports, 270 ms for 10,000, 1.9 s for 40,000); past maxDiffLines lines in all,
// writepath names the changed top-level fields instead ("changed: spec.nodeName"), where the
// apiserver would still compute the diff.
func podSpecDiff(oldSpec, munged map[string]any) string {
	t := goTypeAt("", "Pod", "spec")
	a, b := difflib.SplitLines(indentedJSON(internalGo(t, oldSpec))), difflib.SplitLines(indentedJSON(internalGo(t, munged)))
	if len(a)+len(b) > maxDiffLines {
		return changedFields(munged, oldSpec)
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a, B: b, Context: 3})
	if err != nil {
		return fmt.Sprintf("error generating diff: %v", err)
	}
	return d
}

// maxDiffLines bounds the lines podSpecDiff diffs.
const maxDiffLines = 200_000

// changedFields names the top-level fields of the spec that differ.
func changedFields(a, b map[string]any) string {
	na, nb := mapOf(normalize(a)), mapOf(normalize(b))
	keys := map[string]bool{}
	for k := range na {
		keys[k] = true
	}
	for k := range nb {
		keys[k] = true
	}
	var changed []string
	for k := range keys {
		if !value.Equal(na[k], nb[k]) {
			changed = append(changed, "spec."+k)
		}
	}
	sort.Strings(changed)
	return "changed: " + strings.Join(changed, ", ")
}

// indentedJSON is compact JSON as json.MarshalIndent(v, "", " ") writes it.
func indentedJSON(compact []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", " "); err != nil {
		return string(compact)
	}
	return b.String()
}

// onlyAddedTolerations is validateOnlyAddedTolerations: every stored toleration is kept (its
// tolerationSeconds may change), then ValidateTolerations.
func onlyAddedTolerations(p field.Path, tols, old []any) field.ErrorList {
	for _, o := range old {
		om := mapOf(o)
		found := false
		for _, n := range tols {
			nm := mapOf(n)
			c := make(map[string]any, len(om))
			for k, v := range om {
				c[k] = v
			}
			if ts, ok := nm["tolerationSeconds"]; ok {
				c["tolerationSeconds"] = ts
			} else {
				delete(c, "tolerationSeconds")
			}
			if value.Equal(normalize(c), normalize(nm)) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(p, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return validateTolerations(p, tols)
}

// onlyDeletedSchedulingGates is validateOnlyDeletedSchedulingGates (new gates in index order,
// where the apiserver's order is Go map order).
func onlyDeletedSchedulingGates(p field.Path, gates, old []any) field.ErrorList {
	if len(gates) == 0 {
		return nil
	}
	added := map[string]int{}
	for i, g := range gates {
		added[str(mapOf(g), "name")] = i
	}
	for _, g := range old {
		delete(added, str(mapOf(g), "name"))
	}
	idx := make([]int, 0, len(added))
	byIdx := map[int]string{}
	for name, i := range added {
		idx = append(idx, i)
		byIdx[i] = name
	}
	sort.Ints(idx)
	var errs field.ErrorList
	for _, i := range idx {
		errs = append(errs, field.Forbidden(p.Index(i).Child("name"), fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", byIdx[i])))
	}
	return errs
}

// validateTolerations is ValidateTolerations (TaintTolerationComparisonOperators is off).
func validateTolerations(p field.Path, tols []any) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range tols {
		t := mapOf(raw)
		ip := p.Index(i)
		key, op, val, eff := str(t, "key"), str(t, "operator"), str(t, "value"), str(t, "effect")
		if key != "" {
			errs = append(errs, qualifiedName(ip.Child("key"), key)...)
		}
		if key == "" && op != "Exists" {
			errs = append(errs, field.Invalid(ip.Child("operator"), op, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if has(t, "tolerationSeconds") && eff != "NoExecute" {
			errs = append(errs, field.Invalid(ip.Child("effect"), eff, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch op {
		case "Equal", "":
			if msgs := ivalidation.IsValidLabelValue(val); len(msgs) != 0 {
				errs = append(errs, field.Invalid(ip.Child("operator"), val, strings.Join(msgs, ";")))
			}
		case "Exists":
			if val != "" {
				errs = append(errs, field.Invalid(ip.Child("operator"), val, "value must be empty when `operator` is 'Exists'"))
			}
		case "Lt", "Gt":
			errs = append(errs, field.NotSupported(ip.Child("operator"), op, []string{"Equal", "Exists", "Lt", "Gt"}))
		default:
			errs = append(errs, field.NotSupported(ip.Child("operator"), op, []string{"Equal", "Exists"}))
		}
		if eff != "" && eff != "NoSchedule" && eff != "PreferNoSchedule" && eff != "NoExecute" {
			errs = append(errs, field.NotSupported(ip.Child("effect"), eff, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
	}
	return errs
}
