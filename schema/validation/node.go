package validation

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/validation"
)

// Node (pkg/registry/core/node): ValidateNode on create (a Node may carry its status then),
// ValidateNode and ValidateNodeUpdate on update, ValidateNodeUpdate alone on /status, the
// warnings, and the fields PrepareForCreate/PrepareForUpdate drop at 1.37's gates
// (spec.configSource and status.config unless already in use, spec.podPreemptionPolicy with
// InPlacePodVerticalScalingSchedulerPreemption off, status.nodeInfo.runningInUserNamespace
// with KubeletInUserNamespace off). The taints and preferAvoidPods annotations are decoded as
// the apiserver decodes them (encoding/json into the internal and v1 types, whose names its
// type errors carry). The capacity and allocatable lists are walked in sorted key order (the
// apiserver: Go map order). The paths are the apiserver's, misnamed ones included
// (metadata.taints, metadata.nodeSwapStatus).

const (
	taintsAnnotation          = "scheduler.alpha.kubernetes.io/taints"
	preferAvoidPodsAnnotation = "scheduler.alpha.kubernetes.io/preferAvoidPods"
)

var nodeDeclaredFeature = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*(\/[a-zA-Z][a-zA-Z0-9]*)*$`)

func validateNode(obj map[string]any, _ Options) field.ErrorList {
	return distinct(nodeRules(obj))
}

// nodeRules is ValidateNode.
func nodeRules(obj map[string]any) field.ErrorList {
	mp := field.NewPath("metadata")
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	errs = append(errs, nodeAnnotations(mp.Child("annotations"), stringMap(mapOf(obj["metadata"])["annotations"]))...)
	spec, st := mapOf(obj["spec"]), mapOf(obj["status"])
	if taints := listOf(spec["taints"]); len(taints) > 0 {
		errs = append(errs, nodeTaints(mp.Child("taints"), taints)...)
	}
	errs = append(errs, nodeResources(st)...)
	if swap, ok := mapOf(st["nodeInfo"])["swap"].(map[string]any); ok {
		if c, ok := optInt(swap, "capacity"); ok && c <= 0 {
			errs = append(errs, field.Invalid(mp.Child("nodeSwapStatus", "capacity"), c, "must be greater than zero"))
		}
	}
	errs = append(errs, nodeDeclaredFeatures(field.NewPath("status", "declaredFeatures"), stringList(st["declaredFeatures"]))...)
	cidrs := stringList(spec["podCIDRs"])
	if len(cidrs) > 0 {
		cp := field.NewPath("spec", "podCIDRs")
		for i, c := range cidrs {
			errs = append(errs, legacyCIDR(cp.Index(i), c, nil)...)
		}
		if len(cidrs) > 1 {
			v4, v6 := false, false
			var bad error
			for i, c := range cidrs {
				n := parseCIDRSloppy(c)
				if n == nil {
					bad = fmt.Errorf("invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[%d]: <nil> (invalid CIDR address: %s)", i, c)
					break
				}
				if n.IP.To4() != nil {
					v4 = true
				} else {
					v6 = true
				}
			}
			if bad != nil {
				errs = append(errs, field.InternalError(cp, bad))
			}
			if bad != nil || !(v4 && v6) || len(cidrs) > 2 {
				errs = append(errs, field.Invalid(cp, cidrs, "may specify no more than one CIDR for each IP family"))
			}
		}
	}
	return errs
}

func validateNodeUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		return distinct(nodeUpdateRules(obj, old))
	case "":
		return distinct(append(nodeRules(obj), nodeUpdateRules(obj, old)...))
	}
	return nil
}

// nodeUpdateRules is ValidateNodeUpdate.
func nodeUpdateRules(obj, old map[string]any) field.ErrorList {
	mp := field.NewPath("metadata")
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, nodeAnnotations(mp.Child("annotations"), stringMap(mapOf(obj["metadata"])["annotations"]))...)
	spec, oldSpec, st := mapOf(obj["spec"]), mapOf(old["spec"]), mapOf(obj["status"])
	errs = append(errs, nodeResources(st)...)
	errs = append(errs, nodeDeclaredFeatures(field.NewPath("status", "declaredFeatures"), stringList(st["declaredFeatures"]))...)
	seen := map[[2]string]bool{}
	for i, a := range listOf(st["addresses"]) {
		am := mapOf(a)
		k := [2]string{str(am, "type"), str(am, "address")}
		if seen[k] {
			errs = append(errs, field.Duplicate(field.NewPath("status", "addresses").Index(i), struct{ Type, Address string }{k[0], k[1]}))
		}
		seen[k] = true
	}
	if oldCIDRs := stringList(oldSpec["podCIDRs"]); len(oldCIDRs) > 0 {
		cidrs := stringList(spec["podCIDRs"])
		forbid := field.Forbidden(field.NewPath("spec", "podCIDRs"), "node updates may not change podCIDR except from \"\" to valid")
		if len(oldCIDRs) != len(cidrs) {
			errs = append(errs, forbid)
		} else {
			for i, c := range oldCIDRs {
				if c != cidrs[i] {
					errs = append(errs, forbid)
				}
			}
		}
	}
	pid, oldPID := str(spec, "providerID"), str(oldSpec, "providerID")
	if oldPID != "" && pid != "" && oldPID != pid {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be modified once set"))
	}
	if oldPID != "" && pid == "" {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be cleared once set"))
	}
	if cs, ok := spec["configSource"].(map[string]any); ok {
		errs = append(errs, nodeConfigSource(field.NewPath("spec", "configSource"), cs, true)...)
	}
	if cfg, ok := st["config"].(map[string]any); ok {
		for _, k := range []string{"assigned", "active", "lastKnownGood"} {
			if src, ok := cfg[k].(map[string]any); ok {
				errs = append(errs, nodeConfigSource(field.NewPath("status", "config", k), src, false)...)
			}
		}
	}
	if taints := listOf(spec["taints"]); len(taints) > 0 {
		errs = append(errs, nodeTaints(mp.Child("taints"), taints)...)
	}
	if str(spec, "externalID") != str(oldSpec, "externalID") {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}

// nodeConfigSource is validateNodeConfigSourceSpec (spec) and validateNodeConfigSourceStatus.
func nodeConfigSource(p field.Path, src map[string]any, spec bool) field.ErrorList {
	var errs field.ErrorList
	cm, ok := src["configMap"].(map[string]any)
	if ok {
		cp := p.Child("configMap")
		if spec {
			if str(cm, "uid") != "" {
				errs = append(errs, field.Forbidden(cp.Child("uid"), "uid must not be set in spec"))
			}
			if str(cm, "resourceVersion") != "" {
				errs = append(errs, field.Forbidden(cp.Child("resourceVersion"), "resourceVersion must not be set in spec"))
			}
		} else {
			if str(cm, "uid") == "" {
				errs = append(errs, field.Required(cp.Child("uid"), ""))
			}
			if str(cm, "resourceVersion") == "" {
				errs = append(errs, field.Required(cp.Child("resourceVersion"), ""))
			}
		}
		for _, f := range []struct {
			key  string
			msgs func(string) []string
		}{{"namespace", func(s string) []string { return validation.NameIsDNSLabel(s, false) }},
			{"name", func(s string) []string { return validation.NameIsDNSSubdomain(s, false) }},
			{"kubeletConfigKey", validation.IsConfigMapKey}} {
			if v := str(cm, f.key); v == "" {
				errs = append(errs, field.Required(cp.Child(f.key), ""))
			} else {
				errs = append(errs, invalids(cp.Child(f.key), v, f.msgs(v))...)
			}
		}
	} else {
		errs = append(errs, field.Invalid(p, nodeConfigSourceValue(src), "exactly one reference subfield must be non-nil"))
	}
	return errs
}

// nodeConfigSourceValue is an internal NodeConfigSource as a bad value.
func nodeConfigSourceValue(src map[string]any) json.RawMessage {
	cm, ok := src["configMap"].(map[string]any)
	if !ok {
		return json.RawMessage(`{"ConfigMap":null}`)
	}
	b, _ := json.Marshal(struct {
		ConfigMap struct{ Namespace, Name, UID, ResourceVersion, KubeletConfigKey string }
	}{struct{ Namespace, Name, UID, ResourceVersion, KubeletConfigKey string }{str(cm, "namespace"), str(cm, "name"), str(cm, "uid"), str(cm, "resourceVersion"), str(cm, "kubeletConfigKey")}})
	return b
}

// nodeResources is ValidateNodeResources (paths status.capacity.<name>, as the apiserver
// builds them).
func nodeResources(st map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, list := range []string{"capacity", "allocatable"} {
		m := mapOf(st[list])
		for _, k := range sortedKeys(m) {
			q, _ := qtyOrZero(m[k])
			errs = append(errs, ValidateResourceQuantityValue(field.NewPath("status", list, k), k, q)...)
		}
	}
	return errs
}

// nodeDeclaredFeatures is validateNodeDeclaredFeatures: valid names, sorted, no repeats.
func nodeDeclaredFeatures(p field.Path, features []string) field.ErrorList {
	var errs field.ErrorList
	for i, f := range features {
		switch {
		case len(f) > 253:
			errs = append(errs, field.Invalid(p.Index(i), f, fmt.Sprintf("invalid feature name %q: must be no more than 253 characters", f)))
		case !nodeDeclaredFeature.MatchString(f):
			errs = append(errs, field.Invalid(p.Index(i), f, fmt.Sprintf("invalid feature name %q: must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes", f)))
		}
		if i+1 < len(features) {
			next := features[i+1]
			if f == next {
				errs = append(errs, field.Duplicate(p.Index(i+1), next))
			} else if f > next {
				errs = append(errs, field.Invalid(p.Index(i+1), next, "list must be sorted alphabetically"))
			}
		}
	}
	return errs
}

// nodeTaint is a taint as the apiserver reads it (the internal core.Taint).
type nodeTaint struct {
	Key, Value, Effect string
	TimeAdded          any
	hasTime            bool
}

// nodeTaintValue is a taint as a bad value: the internal core.Taint's JSON.
func (t nodeTaint) MarshalJSON() ([]byte, error) {
	added := json.RawMessage("null")
	if t.hasTime {
		added = timeValue(t.TimeAdded, time.RFC3339)
	}
	return json.Marshal(struct {
		Key, Value, Effect string
		TimeAdded          json.RawMessage
	}{t.Key, t.Value, t.Effect, added})
}

// nodeTaints is validateNodeTaints over the taints of spec (or of the taints annotation).
func nodeTaints(p field.Path, taints []any) field.ErrorList {
	list := make([]nodeTaint, 0, len(taints))
	for _, raw := range taints {
		m := mapOf(raw)
		t, has := m["timeAdded"]
		list = append(list, nodeTaint{Key: str(m, "key"), Value: str(m, "value"), Effect: str(m, "effect"), TimeAdded: t, hasTime: has && t != nil})
	}
	return checkNodeTaints(p, list)
}

func checkNodeTaints(p field.Path, taints []nodeTaint) field.ErrorList {
	var errs field.ErrorList
	unique := map[[2]string]bool{}
	for i, t := range taints {
		ip := p.Index(i)
		errs = append(errs, invalids(ip.Child("key"), t.Key, validation.IsQualifiedName(t.Key))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch t.Effect {
		case "":
			errs = append(errs, field.Required(ip.Child("effect"), ""))
		case "NoSchedule", "PreferNoSchedule", "NoExecute":
		default:
			errs = append(errs, field.NotSupported(ip.Child("effect"), t.Effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
		k := [2]string{t.Effect, t.Key}
		if unique[k] {
			d := field.Duplicate(ip, t)
			d.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, d)
			continue
		}
		unique[k] = true
	}
	return errs
}

// nodeAnnotations is ValidateNodeSpecificAnnotations: the taints and preferAvoidPods
// annotations, when set, decode and hold valid values.
func nodeAnnotations(p field.Path, ann map[string]string) field.ErrorList {
	var errs field.ErrorList
	if s := ann[taintsAnnotation]; s != "" {
		taints, err := decodeTaintsAnnotation(s)
		if err != nil {
			errs = append(errs, field.Invalid(p, taintsAnnotation, err.Error()))
		} else if len(taints) > 0 {
			errs = append(errs, checkNodeTaints(p.Child(taintsAnnotation), taints)...)
		}
	}
	if s := ann[preferAvoidPodsAnnotation]; s != "" {
		errs = append(errs, avoidPodsAnnotation(p, s)...)
	}
	return errs
}

// The annotations are decoded with encoding/json into types shaped as the apiserver's: the
// internal core.Taint (no JSON tags: keys match the Go names without regard to case) and the v1
// AvoidPods. Their type errors name the apiserver's types.
type (
	annTaint struct {
		Key       string
		Value     string
		Effect    annTaintEffect
		TimeAdded *codec.Time
	}
	annTaintEffect string
	annAvoidPods   struct {
		PreferAvoidPods []annAvoidEntry `json:"preferAvoidPods,omitempty"`
	}
	annAvoidEntry struct {
		PodSignature annPodSignature `json:"podSignature"`
		EvictionTime codec.Time      `json:"evictionTime,omitempty"`
		Reason       string          `json:"reason,omitempty"`
		Message      string          `json:"message,omitempty"`
	}
	annPodSignature struct {
		PodController *annOwnerReference `json:"podController,omitempty"`
	}
	annOwnerReference struct {
		APIVersion         string `json:"apiVersion"`
		Kind               string `json:"kind"`
		Name               string `json:"name"`
		UID                annUID `json:"uid"`
		Controller         *bool  `json:"controller,omitempty"`
		BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
	}
	annUID string
)

// annTypeNames are the names the apiserver's types have in encoding/json's messages.
var annTypeNames = strings.NewReplacer(
	"validation.annTaintEffect", "core.TaintEffect", "validation.annTaint", "core.Taint", "codec.Time", "v1.Time",
	"validation.annAvoidPods", "v1.AvoidPods", "validation.annAvoidEntry", "v1.PreferAvoidPodsEntry",
	"validation.annPodSignature", "v1.PodSignature", "validation.annOwnerReference", "v1.OwnerReference", "validation.annUID", "types.UID",
	"field annTaint.", "field Taint.", "field annAvoidPods.", "field AvoidPods.", "field annAvoidEntry.", "field PreferAvoidPodsEntry.",
	"field annPodSignature.", "field PodSignature.", "field annOwnerReference.", "field OwnerReference.")

func annError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return errors.New(annTypeNames.Replace(err.Error()))
	}
	return err
}

func decodeTaintsAnnotation(s string) ([]nodeTaint, error) {
	var taints []annTaint
	if err := json.Unmarshal([]byte(s), &taints); err != nil {
		return nil, annError(err)
	}
	out := make([]nodeTaint, 0, len(taints))
	for _, t := range taints {
		nt := nodeTaint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)}
		if t.TimeAdded != nil && t.TimeAdded.Set {
			nt.TimeAdded, nt.hasTime = t.TimeAdded.Time.UTC().Format(time.RFC3339), true
		}
		out = append(out, nt)
	}
	return out, nil
}

// avoidPodsAnnotation is ValidateAvoidPodsInNodeAnnotations. An entry whose pod controller has
// no controller field makes the apiserver dereference nil (a 500); writepath reports it as an
// internal error at that field.
func avoidPodsAnnotation(p field.Path, s string) field.ErrorList {
	var avoids annAvoidPods
	if err := json.Unmarshal([]byte(s), &avoids); err != nil {
		return field.ErrorList{field.Invalid(p.Child("AvoidPods"), preferAvoidPodsAnnotation, annError(err).Error())}
	}
	var errs field.ErrorList
	for i, e := range avoids.PreferAvoidPods {
		ip := p.Child(preferAvoidPodsAnnotation).Index(i)
		pc := e.PodSignature.PodController
		switch {
		case pc == nil:
			errs = append(errs, field.Required(ip.Child("PodSignature"), ""))
		case pc.Controller == nil:
			errs = append(errs, field.InternalError(ip.Child("PodSignature", "PodController", "Controller"), errors.New("the apiserver panics on a pod controller without controller")))
		case !*pc.Controller:
			errs = append(errs, field.Invalid(ip.Child("PodSignature", "PodController", "Controller"), false, "must point to a controller"))
		}
	}
	return errs
}

// nodeWarnings is the strategy's nodeWarnings (create and update; /status warns of nothing).
func nodeWarnings(obj, _ map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	spec := mapOf(obj["spec"])
	var out []string
	if has(spec, "configSource") {
		out = append(out, "spec.configSource: the feature is removed")
	}
	if str(spec, "externalID") != "" {
		out = append(out, "spec.externalID: this field is deprecated, and is unused by Kubernetes")
	}
	cp := field.NewPath("spec", "podCIDRs")
	for i, c := range stringList(spec["podCIDRs"]) {
		out = append(out, cidrWarnings(cp.Index(i).String(), c)...)
	}
	return out
}

// prepareNodeCreate is PrepareForCreate's dropDisabledFields on a new Node.
func prepareNodeCreate(obj map[string]any, opts Options) map[string]any {
	if opts.Subresource != "" {
		return obj
	}
	spec, st := mapOf(obj["spec"]), mapOf(obj["status"])
	if !has(spec, "configSource") && !has(spec, "podPreemptionPolicy") && !has(st, "config") {
		return obj
	}
	out := copyMap(obj)
	if _, ok := obj["spec"].(map[string]any); ok {
		ns := copyMap(spec)
		delete(ns, "configSource")
		delete(ns, "podPreemptionPolicy")
		out["spec"] = ns
	}
	if _, ok := obj["status"].(map[string]any); ok {
		nst := copyMap(st)
		delete(nst, "config")
		out["status"] = nst
	}
	return out
}

// prepareNodeUpdate is PrepareForUpdate's drops beside the status reset (the main resource):
// configSource unless the stored Node has one, podPreemptionPolicy unless it has one; on
// /status, status.config unless stored and nodeInfo.runningInUserNamespace unless stored.
func prepareNodeUpdate(obj, old map[string]any, opts Options) map[string]any {
	switch opts.Subresource {
	case "":
		spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
		var drop []string
		for _, k := range []string{"configSource", "podPreemptionPolicy"} {
			if has(spec, k) && !has(oldSpec, k) {
				drop = append(drop, k)
			}
		}
		if len(drop) == 0 {
			return obj
		}
		ns := copyMap(spec)
		for _, k := range drop {
			delete(ns, k)
		}
		out := copyMap(obj)
		out["spec"] = ns
		return out
	case "status":
		// The spec is the stored one (the registry's reset does the same).
		if !semanticEqual(obj["spec"], old["spec"]) {
			obj = copyMap(obj)
			setOrDelete(obj, "spec", old["spec"])
		}
		st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
		dropConfig := has(st, "config") && !has(oldSt, "config")
		info := mapOf(st["nodeInfo"])
		dropUserNS := has(info, "runningInUserNamespace") && !has(mapOf(oldSt["nodeInfo"]), "runningInUserNamespace")
		if !dropConfig && !dropUserNS {
			return obj
		}
		nst := copyMap(st)
		if dropConfig {
			delete(nst, "config")
		}
		if dropUserNS {
			ni := copyMap(info)
			delete(ni, "runningInUserNamespace")
			nst["nodeInfo"] = ni
		}
		out := copyMap(obj)
		out["status"] = nst
		return out
	}
	return obj
}
