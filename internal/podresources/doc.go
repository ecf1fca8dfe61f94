// Package podresources is writepath's one reading of a Pod's resource totals: k8s.io/component-
// helpers resource.PodRequests and PodLimits (v0.37.2) over a Pod in the object model, with the
// feature gates of Kubernetes 1.37 at their defaults (PodLevelResources on). Those who need the
// totals use it: the ResourceQuota evaluator (controllers/resourcequota, with the containers'
// status resources) and the PodResizeValidator admission plugin (registry, without).
//
// A Pod's requests are its containers' summed; each init container's taken at the largest
// (a restartable one, a sidecar, also adds to the containers' and to the sidecars started
// before the next init container); pod-level requests (spec.resources, cpu, memory and
// hugepages-*) in place of the sums where set; then spec.overhead added. Limits alike, the
// overhead added only to non-zero limits. With Options.UseStatusResources each container
// counts the largest of its spec, its allocated resources and its actuated ones (a resize the
// kubelet found Infeasible counts only what is allocated or actuated), as the quota evaluator
// asks with InPlacePodVerticalScaling on.
//
// # Usage
//
//	reqs, err := podresources.Requests(pod, podresources.Options{})
//	cpu := reqs["cpu"] // the zero Quantity when no container asks for cpu
//	limits, err := podresources.Limits(pod, podresources.Options{UseStatusResources: true})
//
// # Invariants
//
// Pure functions over their arguments, which they never modify; no package state;
// concurrency-safe. A value that is no quantity (never so in a validated Pod) counts as absent,
// as does a field of the wrong type.
//
// # Errors
//
// quantity.ErrRange, wrapped with the resource's name, where a sum would need more digits than
// writepath's quantities hold (resource.Quantity would hold it exactly in a big decimal).
package podresources
