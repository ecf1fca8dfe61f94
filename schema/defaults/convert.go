package defaults

import (
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/writepath/writepath/field"
)

// The apiserver holds a built-in object in its internal version: after decoding and defaulting,
// the versioned object is converted to the internal one, and what a client reads back is the
// internal object converted to the version it asked for. Most conversions are lossless for a
// defaulted object; these are not (k8s.io/kubernetes/pkg/apis/<group>/<version>/conversion.go of
// v1.37.2), and roundTripInternal applies them to the decoded, defaulted form:
//
//   - v1 Node: spec.podCIDR and spec.podCIDRs are one internal field (podCIDR wins when they
//     differ; podCIDR is podCIDRs[0] on the way back).
//   - v1 Secret: stringData is written into data (base64) and dropped.
//   - apps/v1 Deployment: the deprecated.deployment.rollback.to annotation is parsed into the
//     internal rollbackTo and written back in canonical form (dropped when empty); rollingUpdate's
//     maxUnavailable and maxSurge are never nil internally (absent ones come back as 0).
//   - apps/v1 DaemonSet: the deprecated.daemonset.template.generation annotation is the
//     internal templateGeneration, written back on every object ("0" when absent);
//     rollingUpdate's maxUnavailable and maxSurge as for Deployment.
//   - apps/v1 StatefulSet: every volumeClaimTemplate gets apiVersion v1 and kind
//     PersistentVolumeClaim; rollingUpdate.partition is a value internally (nil comes back 0).
//   - apiextensions.k8s.io/v1 CustomResourceDefinition: spec.conversion.webhook without a
//     clientConfig and without conversionReviewVersions is dropped.
//   - autoscaling/v1 HorizontalPodAutoscaler: without a target CPU utilization and without
//     other metrics the internal object has the 80 % CPU metric, which comes back as
//     targetCPUUtilizationPercentage 80; status.currentCPUUtilizationPercentage comes back in
//     the autoscaling.alpha.kubernetes.io/current-metrics annotation too. The round-trip
//     annotations
//     (autoscaling.alpha.kubernetes.io/metrics, behavior, ...) carrying v2 fields through v1 are
//     not modelled: an object that has one is left as written.
//
// A value the conversion cannot parse (a non-integer annotation) is the apiserver's conversion
// error, returned as a *field.Error.

const (
	annRollbackTo         = "deprecated.deployment.rollback.to"
	annTemplateGeneration = "deprecated.daemonset.template.generation"
)

var hpaRoundTripAnnotations = []string{"autoscaling.alpha.kubernetes.io/metrics", "autoscaling.alpha.kubernetes.io/behavior",
	"autoscaling.alpha.kubernetes.io/scale-down-tolerance", "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
	"autoscaling.alpha.kubernetes.io/current-metrics", "autoscaling.alpha.kubernetes.io/conditions"}

func roundTripInternal(name string, m map[string]any) error {
	switch name {
	case "io.k8s.api.core.v1.Node":
		spec := ensureMap(m, "spec")
		cidr, cidrs := dstr(spec, "podCIDR"), dlist(spec, "podCIDRs")
		if cidr != "" && (len(cidrs) == 0 || cidrs[0] != cidr) {
			spec["podCIDRs"] = []any{cidr}
		}
		cidrs = dlist(spec, "podCIDRs")
		delete(spec, "podCIDR")
		if len(cidrs) > 0 {
			setStr(spec, "podCIDR", fmt.Sprint(cidrs[0]))
		}
	case "io.k8s.api.core.v1.Secret":
		if sd := dmap(m, "stringData"); len(sd) > 0 {
			data := ensureMap(m, "data")
			for k, v := range sd {
				s, _ := v.(string)
				data[k] = base64.StdEncoding.EncodeToString([]byte(s))
			}
		}
		delete(m, "stringData")
	case "io.k8s.api.apps.v1.Deployment":
		ann := dmap(ensureMap(m, "metadata"), "annotations")
		if v := dstr(ann, annRollbackTo); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return field.Invalid(field.NewPath("metadata", "annotations").Key(annRollbackTo), v,
					fmt.Sprintf("failed to parse annotation[%s]=%s as int64: %v", annRollbackTo, v, err))
			}
			ann[annRollbackTo] = strconv.FormatInt(n, 10)
		} else if ann != nil {
			delete(ann, annRollbackTo)
		}
		rollingUpdatePointers(dig(m, "spec", "strategy", "rollingUpdate"))
	case "io.k8s.api.apps.v1.DaemonSet":
		md := ensureMap(m, "metadata")
		ann := ensureMap(md, "annotations")
		gen := int64(0)
		if v, ok := ann[annTemplateGeneration]; ok {
			s, _ := v.(string)
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return field.Invalid(field.NewPath("metadata", "annotations").Key(annTemplateGeneration), s, err.Error())
			}
			gen = n
		}
		ann[annTemplateGeneration] = strconv.FormatInt(gen, 10)
		rollingUpdatePointers(dig(m, "spec", "updateStrategy", "rollingUpdate"))
	case "io.k8s.api.apps.v1.StatefulSet":
		if ru := dig(m, "spec", "updateStrategy", "rollingUpdate"); ru != nil {
			defaultPtr(ru, "partition", int64(0)) // an int32 internally
		}
		for _, t := range maps(dmap(m, "spec"), "volumeClaimTemplates") {
			t["apiVersion"] = "v1"
			t["kind"] = "PersistentVolumeClaim"
		}
	case "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition":
		// The internal conversion keeps the webhook's client config and review versions at the
		// conversion level: a webhook with neither is dropped.
		if conv := dig(m, "spec", "conversion"); conv != nil {
			if wh := dmap(conv, "webhook"); wh != nil && !has(wh, "clientConfig") && wh["conversionReviewVersions"] == nil {
				delete(conv, "webhook")
			}
		}
	case "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler":
		ann := dmap(dmap(m, "metadata"), "annotations")
		for _, a := range hpaRoundTripAnnotations {
			if _, ok := ann[a]; ok {
				return nil
			}
		}
		defaultPtr(ensureMap(m, "spec"), "targetCPUUtilizationPercentage", int64(80))
		// status.currentCPUUtilizationPercentage is an internal current metric, which comes
		// back both as the field and in the current-metrics annotation (v1 MetricStatus JSON).
		if cur, ok := dmap(m, "status")["currentCPUUtilizationPercentage"].(int64); ok {
			md := ensureMap(m, "metadata")
			ensureMap(md, "annotations")["autoscaling.alpha.kubernetes.io/current-metrics"] =
				`[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":` + strconv.FormatInt(cur, 10) + `,"currentAverageValue":"0"}}]`
		}
	}
	return nil
}

// rollingUpdatePointers: the internal maxUnavailable and maxSurge are values, so nil pointers
// come back as 0.
func rollingUpdatePointers(ru map[string]any) {
	if ru == nil {
		return
	}
	defaultPtr(ru, "maxUnavailable", int64(0))
	defaultPtr(ru, "maxSurge", int64(0))
}

// internalOnlyAnnotations are, by apiVersion and kind, the annotations a version's conversion
// writes from fields of the internal object, and reads back into them: the internal object's
// metadata never holds them.
var internalOnlyAnnotations = map[[2]string][]string{
	{"apps/v1", "DaemonSet"}:                      {annTemplateGeneration},
	{"apps/v1", "Deployment"}:                     {annRollbackTo},
	{"autoscaling/v1", "HorizontalPodAutoscaler"}: hpaRoundTripAnnotations,
}

// InternalMetadata is metadata, the metadata of a built-in object of apiVersion and kind, as the
// apiserver's internal object holds it, which is what its metadata-only answers
// carry (PartialObjectMetadata and its lists and watch events, a Table row's object): those are
// made from the internal object, before any conversion to the version asked for. So an apps/v1
// DaemonSet's deprecated.daemonset.template.generation annotation, an apps/v1 Deployment's
// deprecated.deployment.rollback.to and an autoscaling/v1 HorizontalPodAutoscaler's
// autoscaling.alpha.kubernetes.io annotations are not in them (an annotations map left empty is
// absent). metadata is not modified, and is returned itself when nothing is dropped.
func InternalMetadata(apiVersion, kind string, metadata any) any {
	md, ok := metadata.(map[string]any)
	if !ok {
		return metadata
	}
	drop := internalOnlyAnnotations[[2]string{apiVersion, kind}]
	ann, _ := md["annotations"].(map[string]any)
	found := false
	for _, a := range drop {
		if _, ok := ann[a]; ok {
			found = true
			break
		}
	}
	if !found {
		return md
	}
	out := make(map[string]any, len(md))
	for k, v := range md {
		out[k] = v
	}
	kept := make(map[string]any, len(ann))
	for k, v := range ann {
		kept[k] = v
	}
	for _, a := range drop {
		delete(kept, a)
	}
	if len(kept) == 0 {
		delete(out, "annotations")
	} else {
		out["annotations"] = kept
	}
	return out
}
