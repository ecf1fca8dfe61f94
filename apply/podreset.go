package apply

import (
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/versions"
)

// ValueReset is a REST strategy's value reset (PrepareForUpdate) that is not a list of paths: it
// rewrites obj, the merged object (owned by the caller, managedFields already set), from live,
// the stored object (nil on create). With UpdateRequest.LiveShared the values at the reset paths
// are live's own: a reset writes only outside them.
type ValueReset func(obj, live map[string]any)

// StrategyReset returns the part of a Pod REST strategy's PrepareForUpdate that is not a list of
// paths (ResetPaths), for Request.Reset, in Kubernetes 1.37; nil for every other endpoint. Each
// also sets metadata.generation as the strategy does (updatePodGeneration, through
// versions.NextGeneration): the stored generation, plus one when the spec changed.
//
// /ephemeralcontainers keeps the stored spec, status and the metadata a status write resets
// (labels, annotations, finalizers, ownerReferences, deletionTimestamp, generation), and takes
// spec.ephemeralContainers from the write.
//
// /resize keeps the stored spec (volumes included: InPlacePodVerticalScalingMemoryBackedVolumes
// is off), status and that metadata, and takes from the write each container's and init
// container's resources and resizePolicy, and the pod-level spec.resources (the stored one when
// the write has none). When the write adds, removes or renames a container the strategy keeps
// the write as it is and validation rejects it (StrategyValidation). Pod-level resources are
// then defaulted from the containers' (DefaultPodLevelResources, PodLevelResourcesFixDefaulting
// on).
//
// The main resource keeps the stored pod-level resources when the write dropped them
// (PodLevelResourcesFixDefaulting) and bumps the generation on a spec change; on create it
// does nothing (PrepareForCreate's generation 1, status and QoS class belong to defaulting and
// admission). /status keeps the stored generation, backfills the QoS class when the write
// cleared it and the DRA status lists when it dropped them, and keeps status.observedGeneration
// and each condition's observedGeneration when the write leaves them 0
// (PodObservedGenerationTracking, GA in 1.37). Recorded: testdata/apply/recorded/pod*.
func StrategyReset(gvk schema.GroupVersionKind, subresource string) ValueReset {
	if gvk.Group != "" || gvk.Kind != "Pod" {
		return nil
	}
	switch subresource {
	case "ephemeralcontainers":
		return resetPodEphemeralContainers
	case "resize":
		return resetPodResize
	case "status":
		return resetPodStatus
	case "":
		return resetPodMain
	}
	return nil
}

// podGeneration is updatePodGeneration through versions' rule for pods (the same for the main
// resource, /resize and /ephemeralcontainers): the stored generation, plus one when the spec
// changed (typed equality). /status keeps the stored generation.
func podGeneration(obj, live map[string]any, subresource string) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	s, _ := versions.Builtin(schema.GroupVersionKind{Kind: "Pod"})
	g, err := versions.NextGeneration(s, live, obj, subresource)
	if err != nil {
		return // a live object that is not one of the model: nothing to bump from
	}
	if g.New == 0 {
		delete(md, "generation")
		return
	}
	md["generation"] = g.New
}

// resetPodMain is podStrategy.PrepareForUpdate after the status reset of ResetPaths:
// PodLevelResourcesFixDefaulting keeps the stored pod-level resources when the write dropped
// them, and the generation is bumped when the spec changed. On create (live nil) nothing is
// done here: PrepareForCreate belongs to defaulting and admission.
func resetPodMain(obj, live map[string]any) {
	if live == nil {
		return
	}
	if oldRes, ok := present(mapOf(live["spec"]), "resources"); ok {
		if spec := mapOf(obj["spec"]); spec != nil {
			if _, has := present(spec, "resources"); !has {
				spec["resources"] = toModel(oldRes)
			}
		}
	}
	podGeneration(obj, live, "")
}

// resetPodStatus is podStatusStrategy.PrepareForUpdate after the resets of ResetPaths (spec,
// deletionTimestamp, ownerReferences): the QoS class is backfilled when the write cleared it,
// the DRA status lists are kept when the write dropped them, status.observedGeneration and
// each condition's observedGeneration are kept when the write leaves them 0
// (PodObservedGenerationTracking is GA in 1.37), and the generation is the stored one.
func resetPodStatus(obj, live map[string]any) {
	if live == nil {
		return
	}
	st, oldSt := mapOf(obj["status"]), mapOf(live["status"])
	if st == nil {
		st = map[string]any{}
		obj["status"] = st
	}
	if q, _ := st["qosClass"].(string); q == "" {
		if oq, ok := oldSt["qosClass"]; ok {
			st["qosClass"] = toModel(oq)
		}
	}
	for _, k := range []string{"resourceClaimStatuses", "extendedResourceClaimStatus", "nodeAllocatableResourceClaimStatuses"} {
		if v, ok := present(st, k); !ok || v == nil {
			if ov, ok := present(oldSt, k); ok {
				st[k] = toModel(ov)
			}
		}
	}
	if isZeroInt(st["observedGeneration"]) {
		if og, ok := present(oldSt, "observedGeneration"); ok {
			st["observedGeneration"] = toModel(og)
		}
	}
	// Old conditions' observedGeneration per type, in order (validation allows repeated types).
	oldGens := map[string][]any{}
	for _, c := range listOf(oldSt["conditions"]) {
		cm := mapOf(c)
		t, _ := cm["type"].(string)
		oldGens[t] = append(oldGens[t], cm["observedGeneration"])
	}
	for _, c := range listOf(st["conditions"]) {
		cm := mapOf(c)
		if cm == nil {
			continue
		}
		t, _ := cm["type"].(string)
		var og any
		if gens := oldGens[t]; len(gens) > 0 {
			og, oldGens[t] = gens[0], gens[1:]
		}
		if isZeroInt(cm["observedGeneration"]) {
			if isZeroInt(og) {
				// 0 and absent are the same Go value; the stored form omits it.
				delete(cm, "observedGeneration")
			} else {
				cm["observedGeneration"] = toModel(og)
			}
		}
	}
	if isZeroInt(st["observedGeneration"]) {
		delete(st, "observedGeneration")
	}
	md, _ := obj["metadata"].(map[string]any)
	if md != nil {
		if g, ok := metadataOf(live)["generation"]; ok {
			md["generation"] = toModel(g)
		} else {
			delete(md, "generation")
		}
	}
}

// isZeroInt reports whether v is absent, null or the number 0.
func isZeroInt(v any) bool {
	switch n := v.(type) {
	case nil:
		return true
	case int64:
		return n == 0
	case float64:
		return n == 0
	}
	return false
}

// resetPodEphemeralContainers is podEphemeralContainersStrategy.PrepareForUpdate.
func resetPodEphemeralContainers(obj, live map[string]any) {
	if live == nil {
		return
	}
	defer podGeneration(obj, live, "ephemeralcontainers")
	spec := copyMapOrNil(live["spec"])
	if eph, ok := mapOf(obj["spec"])["ephemeralContainers"]; ok {
		if spec == nil {
			spec = map[string]any{}
		}
		spec["ephemeralContainers"] = eph
	} else if spec != nil {
		delete(spec, "ephemeralContainers")
	}
	resetSpecStatusMeta(obj, live, spec)
}

// resetPodResize is podResizeStrategy.PrepareForUpdate (dropNonResizeUpdates).
func resetPodResize(obj, live map[string]any) {
	if live == nil {
		return
	}
	defer podGeneration(obj, live, "resize")
	defer podLevelResize(obj, live)
	newSpec, oldSpec := mapOf(obj["spec"]), mapOf(live["spec"])
	newCtrs, oldCtrs := listOf(newSpec["containers"]), listOf(oldSpec["containers"])
	newInit, oldInit := listOf(newSpec["initContainers"]), listOf(oldSpec["initContainers"])
	if len(newCtrs) != len(oldCtrs) || len(newInit) != len(oldInit) {
		return
	}
	spec := copyMapOrNil(live["spec"])
	if spec == nil {
		spec = map[string]any{}
	}
	if r, ok := newSpec["resources"]; ok && r != nil {
		spec["resources"] = r
	}
	setList(spec, "containers", resizeContainers(newSpec["containers"], newCtrs, oldCtrs))
	setList(spec, "initContainers", resizeContainers(newSpec["initContainers"], newInit, oldInit))
	resetSpecStatusMeta(obj, live, spec)
}

// podLevelResize is the rest of podResizeStrategy.PrepareForUpdate after dropNonResizeUpdates
// (PodLevelResourcesFixDefaulting on): the stored pod-level resources when the write has none,
// then DefaultPodLevelResources when there are some. It runs before the generation bump.
func podLevelResize(obj, live map[string]any) {
	spec := mapOf(obj["spec"])
	if spec == nil {
		return
	}
	if _, has := present(spec, "resources"); !has {
		if old, ok := present(mapOf(live["spec"]), "resources"); ok {
			spec["resources"] = toModel(old)
		}
	}
	validation.DefaultPodLevelResources(spec)
}

// resizeContainers is dropNonResizeUpdatesForContainers: the stored containers with the write's
// resources and resizePolicy, or the write's list when a name differs. raw is the write's
// value (returned as it is when it is empty or a container was renamed or reordered).
func resizeContainers(raw any, next, old []any) any {
	if len(next) == 0 {
		return raw
	}
	out := make([]any, len(old))
	for i := range next {
		nc, oc := mapOf(next[i]), mapOf(old[i])
		if nc["name"] != oc["name"] {
			return raw
		}
		c := copyMapOrNil(old[i])
		if c == nil {
			c = map[string]any{}
		}
		for _, f := range []string{"resources", "resizePolicy"} {
			if v, ok := nc[f]; ok {
				c[f] = v
			} else {
				delete(c, f)
			}
		}
		out[i] = c
	}
	return out
}

// resetSpecStatusMeta sets obj's spec (absent when nil), puts back the stored status, and resets
// the metadata ResetObjectMetaForStatus resets.
func resetSpecStatusMeta(obj, live map[string]any, spec map[string]any) {
	if spec != nil {
		obj["spec"] = toModel(spec)
	} else {
		delete(obj, "spec")
	}
	if st, ok := live["status"]; ok {
		obj["status"] = toModel(st)
	} else {
		delete(obj, "status")
	}
	resetValues(obj, live, [][]string{{"metadata"}})
}

func setList(m map[string]any, key string, v any) {
	if v == nil {
		delete(m, key)
		return
	}
	m[key] = v
}

func mapOf(v any) map[string]any { m, _ := v.(map[string]any); return m }
func listOf(v any) []any         { l, _ := v.([]any); return l }

// copyMapOrNil is a shallow copy of a map value, nil when v is not a map.
func copyMapOrNil(v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	return out
}
