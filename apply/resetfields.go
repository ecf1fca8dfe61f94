package apply

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/schema"
)

// resetRule is one resource's reset fields in Kubernetes 1.37 (the REST strategies'
// GetResetFields / GetResetFieldsFilter): per subresource ("" is the main resource), the paths
// whose ownership is never recorded (and whose values the strategy resets).
type resetRule struct {
	versions []string
	sets     map[string][][]string // subresource -> excluded paths
}

var (
	statusOnly   = [][]string{{"status"}}
	specOnly     = [][]string{{"spec"}}
	metaAndSpec  = [][]string{{"metadata"}, {"spec"}}
	mainAndSpecs = func(status [][]string) map[string][][]string {
		return map[string][][]string{"": statusOnly, "status": status}
	}
)

// resetRules is keyed by "group/Kind" (core group: "/Kind").
var resetRules = map[string]resetRule{
	"apps/Deployment":  {versions: []string{"apps/v1"}, sets: mainAndSpecs([][]string{{"spec"}, {"metadata", "labels"}})},
	"apps/ReplicaSet":  {versions: []string{"apps/v1"}, sets: mainAndSpecs(specOnly)},
	"apps/StatefulSet": {versions: []string{"apps/v1"}, sets: mainAndSpecs(specOnly)},
	"apps/DaemonSet":   {versions: []string{"apps/v1"}, sets: mainAndSpecs(specOnly)},
	"batch/Job":        {versions: []string{"batch/v1"}, sets: mainAndSpecs(specOnly)},
	"batch/CronJob":    {versions: []string{"batch/v1", "batch/v1beta1"}, sets: mainAndSpecs(specOnly)},

	"/Node":                  {versions: []string{"v1"}, sets: mainAndSpecs(specOnly)},
	"/ResourceQuota":         {versions: []string{"v1"}, sets: mainAndSpecs(specOnly)},
	"/PersistentVolume":      {versions: []string{"v1"}, sets: mainAndSpecs(specOnly)},
	"/PersistentVolumeClaim": {versions: []string{"v1"}, sets: mainAndSpecs(specOnly)},
	"/Service":               {versions: []string{"v1"}, sets: mainAndSpecs(specOnly)},
	"/ReplicationController": {versions: []string{"v1"}, sets: mainAndSpecs(specOnly)},
	"/Namespace": {versions: []string{"v1"}, sets: map[string][][]string{
		"": statusOnly, "status": specOnly, "finalize": statusOnly}},
	"/Pod": {versions: []string{"v1"},
		sets: map[string][][]string{"": statusOnly, "status": {{"spec"}, {"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}}},
		// /ephemeralcontainers and /resize: their REST storage implements neither GetResetFields
		// nor GetResetFieldsFilter (the strategies' include filters are never handed to the field
		// manager): nothing is filtered; the values are reset by StrategyReset. Recorded:
		// testdata/apply/recorded/pod.
	},

	"certificates.k8s.io/CertificateSigningRequest": {versions: []string{"certificates.k8s.io/v1", "certificates.k8s.io/v1beta1"}, sets: map[string][][]string{
		"": {{"spec"}, {"status"}}, "status": {{"spec"}, {"status", "conditions"}}, "approval": {{"spec"}, {"status", "certificate"}}}},
	"certificates.k8s.io/PodCertificateRequest": {versions: []string{"certificates.k8s.io/v1", "certificates.k8s.io/v1beta1"}, sets: mainAndSpecs(metaAndSpec)},
	"scheduling.k8s.io/PodGroup":                {versions: []string{"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"}, sets: mainAndSpecs(metaAndSpec)},
	"scheduling.k8s.io/CompositePodGroup":       {versions: []string{"scheduling.k8s.io/v1alpha3"}, sets: mainAndSpecs(metaAndSpec)},
	// ServiceCIDRStatusFieldWiping is on by default in 1.37.
	"networking.k8s.io/ServiceCIDR":                           {versions: []string{"networking.k8s.io/v1", "networking.k8s.io/v1beta1"}, sets: mainAndSpecs(metaAndSpec)},
	"networking.k8s.io/Ingress":                               {versions: []string{"networking.k8s.io/v1", "networking.k8s.io/v1beta1"}, sets: mainAndSpecs(specOnly)},
	"extensions/Ingress":                                      {versions: []string{"extensions/v1beta1"}, sets: mainAndSpecs(specOnly)},
	"storagemigration.k8s.io/StorageVersionMigration":         {versions: []string{"storagemigration.k8s.io/v1", "storagemigration.k8s.io/v1beta1"}, sets: mainAndSpecs(metaAndSpec)},
	"policy/PodDisruptionBudget":                              {versions: []string{"policy/v1", "policy/v1beta1"}, sets: mainAndSpecs(specOnly)},
	"resource.k8s.io/ResourceClaim":                           {versions: []string{"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3"}, sets: mainAndSpecs(metaAndSpec)},
	"resource.k8s.io/DeviceTaintRule":                         {versions: []string{"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"}, sets: mainAndSpecs(metaAndSpec)},
	"resource.k8s.io/ResourcePoolStatusRequest":               {versions: []string{"resource.k8s.io/v1alpha3"}, sets: mainAndSpecs(metaAndSpec)},
	"internal.apiserver.k8s.io/StorageVersion":                {versions: []string{"internal.apiserver.k8s.io/v1alpha1"}, sets: mainAndSpecs(metaAndSpec)},
	"storage.k8s.io/VolumeAttachment":                         {versions: []string{"storage.k8s.io/v1"}, sets: mainAndSpecs(metaAndSpec)},
	"storage.k8s.io/CSINode":                                  {versions: []string{"storage.k8s.io/v1"}, sets: mainAndSpecs(metaAndSpec)},
	"autoscaling/HorizontalPodAutoscaler":                     {versions: []string{"autoscaling/v1", "autoscaling/v2"}, sets: mainAndSpecs(specOnly)},
	"flowcontrol.apiserver.k8s.io/FlowSchema":                 {versions: flowcontrolVersions, sets: mainAndSpecs(metaAndSpec)},
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": {versions: flowcontrolVersions, sets: mainAndSpecs(metaAndSpec)},
	"lifecycle.k8s.io/Eviction":                               {versions: []string{"lifecycle.k8s.io/v1alpha1"}, sets: mainAndSpecs(metaAndSpec)},
	"lifecycle.k8s.io/EvictionRequest":                        {versions: []string{"lifecycle.k8s.io/v1alpha1"}, sets: mainAndSpecs(metaAndSpec)},
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":  {versions: []string{"admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1", "admissionregistration.k8s.io/v1alpha1"}, sets: mainAndSpecs(metaAndSpec)},
	// The CRD status strategy does not reset metadata (kubernetes#137681).
	"apiextensions.k8s.io/CustomResourceDefinition": {versions: []string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"}, sets: mainAndSpecs(specOnly)},
	"apiregistration.k8s.io/APIService":             {versions: []string{"apiregistration.k8s.io/v1", "apiregistration.k8s.io/v1beta1"}, sets: mainAndSpecs(metaAndSpec)},
}

var flowcontrolVersions = []string{"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta3", "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta1"}

// ResetFields returns the reset fields of a built-in resource's endpoint as the apiserver hands
// them to the field manager: for each apiVersion of the resource, a filter removing the fields
// the REST strategy resets (the main resource resets status; /status resets spec, or metadata
// and spec). nil when the endpoint resets nothing (ConfigMap, Secret, ...), and for Pod
// /ephemeralcontainers and /resize: in 1.37 their storage hands the field manager no reset
// fields although their strategies declare include filters, so an apply through them records
// everything it sets (recorded in testdata/apply/recorded/pod); see StrategyReset for their
// value reset.
func ResetFields(gvk schema.GroupVersionKind, subresource string) map[fieldpath.APIVersion]fieldpath.Filter {
	rule, ok := resetRules[gvk.Group+"/"+gvk.Kind]
	if !ok {
		return nil
	}
	if paths, ok := rule.sets[subresource]; ok {
		s := fieldpath.NewSet()
		for _, p := range paths {
			s.Insert(makePath(p))
		}
		out := make(map[fieldpath.APIVersion]fieldpath.Filter, len(rule.versions))
		for _, v := range rule.versions {
			out[fieldpath.APIVersion(v)] = fieldpath.NewExcludeSetFilter(s)
		}
		return out
	}
	return nil
}

// CustomResourceResetFields returns the reset fields of a custom resource endpoint (the
// apiextensions-apiserver strategies): with a status subresource, the main resource resets
// status and /status resets metadata and spec; without one nothing is reset.
func CustomResourceResetFields(apiVersion string, subresource string, hasStatusSubresource bool) map[fieldpath.APIVersion]fieldpath.Filter {
	var paths [][]string
	switch {
	case !hasStatusSubresource:
		return nil
	case subresource == "":
		paths = statusOnly
	case subresource == "status":
		paths = metaAndSpec
	default:
		return nil
	}
	s := fieldpath.NewSet()
	for _, p := range paths {
		s.Insert(makePath(p))
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{fieldpath.APIVersion(apiVersion): fieldpath.NewExcludeSetFilter(s)}
}

func makePath(p []string) fieldpath.Path {
	elems := make([]any, len(p))
	for i, e := range p {
		elems[i] = e
	}
	return fieldpath.MakePathOrDie(elems...)
}

// ResetPaths returns the paths whose values the REST strategy of a built-in endpoint resets after
// the merge (PrepareForCreate/PrepareForUpdate), for Request.ResetValues: the same paths as
// ResetFields' exclusions. Pod /ephemeralcontainers and /resize return nil: their value reset
// keeps everything but a few fields, see StrategyReset.
func ResetPaths(gvk schema.GroupVersionKind, subresource string) [][]string {
	rule, ok := resetRules[gvk.Group+"/"+gvk.Kind]
	if !ok {
		return nil
	}
	return rule.sets[subresource]
}

// CustomResourceResetPaths is ResetPaths for custom resources.
func CustomResourceResetPaths(subresource string, hasStatusSubresource bool) [][]string {
	switch {
	case !hasStatusSubresource:
		return nil
	case subresource == "":
		return statusOnly
	case subresource == "status":
		return metaAndSpec
	}
	return nil
}

// statusMetadataFields are the metadata fields a status update resets (ResetObjectMetaForStatus).
var statusMetadataFields = []string{"deletionTimestamp", "generation", "selfLink", "labels", "annotations", "finalizers", "ownerReferences"}

// resetValues applies the strategy's value reset to obj (owned by the caller): each path gets the
// live value back (or is removed when live has none, and always on create). "metadata" resets
// the fields ResetObjectMetaForStatus resets.
func resetValues(obj, live map[string]any, paths [][]string) {
	for _, p := range paths {
		if len(p) == 1 && p[0] == "metadata" {
			md, _ := obj["metadata"].(map[string]any)
			if md == nil {
				continue
			}
			lmd := metadataOf(live)
			for _, f := range statusMetadataFields {
				if v, ok := lmd[f]; ok {
					md[f] = copyValue(v)
				} else {
					delete(md, f)
				}
			}
			continue
		}
		var lv any
		found := false
		if live != nil {
			lv, found = lookup(live, p)
		}
		setPath(obj, p, lv, found)
	}
}

func lookup(obj map[string]any, p []string) (any, bool) {
	var cur any = obj
	for _, k := range p {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// setPath sets (or, when !found, removes) p in obj, creating maps on the way when setting.
func setPath(obj map[string]any, p []string, v any, found bool) {
	m := obj
	for i, k := range p {
		if i == len(p)-1 {
			if found {
				m[k] = copyValue(v)
			} else {
				delete(m, k)
			}
			return
		}
		next, ok := m[k].(map[string]any)
		if !ok {
			if !found {
				return
			}
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
}
