package cluster

import (
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/internal/labels"
)

// rowFuncs are the row functions of the built-in printers, by "group/Kind". The apiserver
// prints wide (GenerateOptions{Wide: true}), so every row has every column's cell.
// CSIStorageCapacity has a printer in the reference but its storage uses the default table
// convertor (as Roles, ClusterRoles and LimitRanges, which have none).
var rowFuncs = map[string]func(o object, now time.Time) ([]any, []any){
	"/Pod":                                  rowPod,
	"/Service":                              rowService,
	"/ConfigMap":                            rowConfigMap,
	"/Secret":                               rowSecret,
	"/Namespace":                            rowNamespace,
	"/Node":                                 rowNode,
	"/Event":                                rowEvent,
	"/ServiceAccount":                       rowServiceAccount,
	"/Endpoints":                            rowEndpoints,
	"/PersistentVolume":                     rowPersistentVolume,
	"/PersistentVolumeClaim":                rowPersistentVolumeClaim,
	"/ReplicationController":                rowReplicationController,
	"/PodTemplate":                          rowPodTemplate,
	"/ResourceQuota":                        rowResourceQuota,
	"/ComponentStatus":                      rowComponentStatus,
	"apps/Deployment":                       rowDeployment,
	"apps/ReplicaSet":                       rowReplicaSet,
	"apps/StatefulSet":                      rowStatefulSet,
	"apps/DaemonSet":                        rowDaemonSet,
	"apps/ControllerRevision":               rowControllerRevision,
	"batch/Job":                             rowJob,
	"batch/CronJob":                         rowCronJob,
	"autoscaling/HorizontalPodAutoscaler":   rowHPA,
	"autoscaling/Scale":                     rowScale,
	"policy/PodDisruptionBudget":            rowPDB,
	"networking.k8s.io/Ingress":             rowIngress,
	"networking.k8s.io/IngressClass":        rowIngressClass,
	"networking.k8s.io/NetworkPolicy":       rowNetworkPolicy,
	"networking.k8s.io/ServiceCIDR":         rowServiceCIDR,
	"networking.k8s.io/IPAddress":           rowIPAddress,
	"discovery.k8s.io/EndpointSlice":        rowEndpointSlice,
	"rbac.authorization.k8s.io/RoleBinding": rowRoleBinding,
	"rbac.authorization.k8s.io/ClusterRoleBinding":                  rowRoleBinding,
	"storage.k8s.io/StorageClass":                                   rowStorageClass(""),
	"storage.k8s.io/CSIDriver":                                      rowCSIDriver,
	"storage.k8s.io/CSINode":                                        rowCSINode,
	"storage.k8s.io/VolumeAttachment":                               rowVolumeAttachment,
	"storage.k8s.io/VolumeAttributesClass":                          rowVolumeAttributesClass,
	"coordination.k8s.io/Lease":                                     rowLease,
	"coordination.k8s.io/LeaseCandidate":                            rowLeaseCandidate,
	"scheduling.k8s.io/PriorityClass":                               rowPriorityClass,
	"node.k8s.io/RuntimeClass":                                      rowRuntimeClass,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     rowWebhookConfiguration,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   rowWebhookConfiguration,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        rowAdmissionPolicy("validations"),
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          rowAdmissionPolicy("mutations"),
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": rowAdmissionPolicyBinding,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   rowAdmissionPolicyBinding,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       rowFlowSchema,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       rowPriorityLevelConfiguration,
	"certificates.k8s.io/CertificateSigningRequest":                 rowCSR,
	"certificates.k8s.io/ClusterTrustBundle":                        rowClusterTrustBundle,
	"resource.k8s.io/DeviceClass":                                   rowNameAge,
	"resource.k8s.io/ResourceClaimTemplate":                         rowNameAge,
	"resource.k8s.io/ResourceClaim":                                 rowResourceClaim,
	"resource.k8s.io/ResourceSlice":                                 rowResourceSlice,
	"resource.k8s.io/DeviceTaintRule":                               rowDeviceTaintRule,
	"certificates.k8s.io/PodCertificateRequest":                     rowPodCertificateRequest,
	"storagemigration.k8s.io/StorageVersionMigration":               rowStorageVersionMigration,
	"internal.apiserver.k8s.io/StorageVersion":                      rowStorageVersion,
}

func rowNameAge(o object, now time.Time) ([]any, []any) { return []any{o.name(), o.age(now)}, nil }

func rowPod(o object, now time.Time) ([]any, []any) {
	restarts, initRestarts := int64(0), int64(0)
	containers := o.list("spec", "containers")
	total := len(containers)
	ready := 0
	var lastRestart, lastInitRestart time.Time
	phase := o.str("status", "phase")
	reason := phase
	if r := o.str("status", "reason"); r != "" {
		reason = r
	}
	for _, c := range objects(o.list("status", "conditions")) {
		if c.str("type") == "PodScheduled" && c.str("reason") == "SchedulingGated" {
			reason = "SchedulingGated"
		}
	}
	var conds []any
	switch phase {
	case "Succeeded":
		conds = []any{map[string]any{"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}}
	case "Failed":
		conds = []any{map[string]any{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}}
	}
	initSpecs := objects(o.list("spec", "initContainers"))
	restartable := map[string]bool{}
	for _, c := range initSpecs {
		if c.str("restartPolicy") == "Always" {
			restartable[c.str("name")] = true
			total++
		}
	}
	lastTerminated := func(c object) (time.Time, bool) {
		if !c.has("lastState", "terminated") {
			return time.Time{}, false
		}
		t, _ := time.Parse(time.RFC3339, c.str("lastState", "terminated", "finishedAt"))
		return t, true
	}
	initializing := false
	for i, c := range objects(o.list("status", "initContainerStatuses")) {
		restarts += c.num("restartCount")
		if t, ok := lastTerminated(c); ok && lastRestart.Before(t) {
			lastRestart = t
		}
		name := c.str("name")
		if restartable[name] {
			initRestarts += c.num("restartCount")
			if t, ok := lastTerminated(c); ok && lastInitRestart.Before(t) {
				lastInitRestart = t
			}
		}
		term := c.obj("state", "terminated")
		switch {
		case term != nil && term.num("exitCode") == 0:
			continue
		case restartable[name] && c.get("started") == true:
			if c.get("ready") == true {
				ready++
			}
			continue
		case term != nil:
			switch {
			case term.str("reason") != "":
				reason = "Init:" + term.str("reason")
			case term.num("signal") != 0:
				reason = "Init:Signal:" + itoa(term.num("signal"))
			default:
				reason = "Init:ExitCode:" + itoa(term.num("exitCode"))
			}
			initializing = true
		case c.str("state", "waiting", "reason") != "" && c.str("state", "waiting", "reason") != "PodInitializing":
			reason = "Init:" + c.str("state", "waiting", "reason")
			initializing = true
		default:
			reason = "Init:" + strconv.Itoa(i) + "/" + strconv.Itoa(len(initSpecs))
			initializing = true
		}
		break
	}
	initializedTrue := false
	for _, c := range objects(o.list("status", "conditions")) {
		if c.str("type") == "Initialized" && c.str("status") == "True" {
			initializedTrue = true
		}
	}
	if !initializing || initializedTrue {
		restarts, lastRestart = initRestarts, lastInitRestart
		hasRunning := false
		errorReason := ""
		statuses := objects(o.list("status", "containerStatuses"))
		for i := len(statuses) - 1; i >= 0; i-- {
			c := statuses[i]
			restarts += c.num("restartCount")
			if t, ok := lastTerminated(c); ok && lastRestart.Before(t) {
				lastRestart = t
			}
			term := c.obj("state", "terminated")
			switch {
			case c.str("state", "waiting", "reason") != "":
				reason = c.str("state", "waiting", "reason")
			case term != nil:
				switch {
				case term.str("reason") != "":
					reason = term.str("reason")
				case term.num("signal") != 0:
					reason = "Signal:" + itoa(term.num("signal"))
				default:
					reason = "ExitCode:" + itoa(term.num("exitCode"))
				}
				if term.num("exitCode") != 0 {
					errorReason = reason
				}
			case c.get("ready") == true && c.has("state", "running"):
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" {
			podReady := false
			for _, c := range objects(o.list("status", "conditions")) {
				if c.str("type") == "Ready" && c.str("status") == "True" {
					podReady = true
				}
			}
			switch {
			case hasRunning && podReady:
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}
	if o.deleting() && o.str("status", "reason") == "NodeLost" {
		reason = "Unknown"
	} else if o.deleting() && phase != "Succeeded" && phase != "Failed" {
		reason = "Terminating"
	}
	restartsCell := itoa(restarts)
	if restarts != 0 && !lastRestart.IsZero() {
		restartsCell += " (" + humanDuration(now.Sub(lastRestart)) + " ago)"
	}
	podIP := ""
	if ips := objects(o.list("status", "podIPs")); len(ips) > 0 {
		podIP = ips[0].str("ip")
	}
	gates := "<none>"
	if rg := objects(o.list("spec", "readinessGates")); len(rg) > 0 {
		trueCount := 0
		for _, g := range rg {
			for _, c := range objects(o.list("status", "conditions")) {
				if c.str("type") == g.str("conditionType") {
					if c.str("status") == "True" {
						trueCount++
					}
					break
				}
			}
		}
		gates = strconv.Itoa(trueCount) + "/" + strconv.Itoa(len(rg))
	}
	return []any{o.name(), strconv.Itoa(ready) + "/" + strconv.Itoa(total), reason, restartsCell, o.age(now),
		orNone(podIP), orNone(o.str("spec", "nodeName")), orNone(o.str("status", "nominatedNodeName")), gates}, conds
}

// containerCells is layoutContainerCells: the names and the images of containers, joined by
// commas.
func containerCells(containers []any) (string, string) {
	var names, images []string
	for _, c := range objects(containers) {
		names = append(names, c.str("name"))
		images = append(images, c.str("image"))
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

// selectorString is metav1.LabelSelectorAsSelector(s).String() ("" for none; "<error>" when
// it does not convert, where orNoneSelector's caller prints "<invalid>").
func selectorString(s any) (string, bool) {
	if s == nil {
		return "", true
	}
	sel, err := labels.FromLabelSelector(s)
	if err != nil {
		return "", false
	}
	if sel.MatchesNothing() {
		return "", true
	}
	return sel.String(), true
}

// formatLabelSelector is metav1.FormatLabelSelector.
func formatLabelSelector(s any) string {
	str, ok := selectorString(s)
	if !ok {
		return "<error>"
	}
	return orNone(str)
}

func rowDeployment(o object, now time.Time) ([]any, []any) {
	names, images := containerCells(o.list("spec", "template", "spec", "containers"))
	sel, ok := selectorString(o.get("spec", "selector"))
	if !ok {
		sel = "<invalid>"
	}
	return []any{o.name(), itoa(o.num("status", "readyReplicas")) + "/" + itoa(o.num("spec", "replicas")),
		o.num("status", "updatedReplicas"), o.num("status", "availableReplicas"), o.age(now), names, images, sel}, nil
}

func rowReplicaSet(o object, now time.Time) ([]any, []any) {
	names, images := containerCells(o.list("spec", "template", "spec", "containers"))
	return []any{o.name(), o.num("spec", "replicas"), o.num("status", "replicas"), o.num("status", "readyReplicas"), o.age(now),
		names, images, formatLabelSelector(o.get("spec", "selector"))}, nil
}

func rowReplicationController(o object, now time.Time) ([]any, []any) {
	names, images := containerCells(o.list("spec", "template", "spec", "containers"))
	return []any{o.name(), o.num("spec", "replicas"), o.num("status", "replicas"), o.num("status", "readyReplicas"), o.age(now),
		names, images, formatLabels(o.obj("spec", "selector"))}, nil
}

func rowStatefulSet(o object, now time.Time) ([]any, []any) {
	names, images := containerCells(o.list("spec", "template", "spec", "containers"))
	return []any{o.name(), itoa(o.num("status", "readyReplicas")) + "/" + itoa(o.num("spec", "replicas")), o.age(now), names, images}, nil
}

func rowDaemonSet(o object, now time.Time) ([]any, []any) {
	names, images := containerCells(o.list("spec", "template", "spec", "containers"))
	return []any{o.name(), o.num("status", "desiredNumberScheduled"), o.num("status", "currentNumberScheduled"), o.num("status", "numberReady"),
		o.num("status", "updatedNumberScheduled"), o.num("status", "numberAvailable"), formatLabels(o.obj("spec", "template", "spec", "nodeSelector")),
		o.age(now), names, images, formatLabelSelector(o.get("spec", "selector"))}, nil
}

func rowControllerRevision(o object, now time.Time) ([]any, []any) {
	controller := "<none>"
	for _, ref := range objects(o.list("metadata", "ownerReferences")) {
		if ref.get("controller") != true {
			continue
		}
		group := ref.str("apiVersion")
		if i := strings.Index(group, "/"); i >= 0 {
			group = group[:i]
		} else {
			group = ""
		}
		gk := ref.str("kind")
		if group != "" {
			gk += "." + group
		}
		if gk == "" {
			controller = ref.str("name")
		} else {
			controller = strings.ToLower(gk) + "/" + ref.str("name")
		}
		break
	}
	return []any{o.name(), controller, o.num("revision"), o.age(now)}, nil
}

func jobCondition(o object, typ string) bool {
	for _, c := range objects(o.list("status", "conditions")) {
		if c.str("type") == typ {
			return c.str("status") == "True"
		}
	}
	return false
}

func rowJob(o object, now time.Time) ([]any, []any) {
	var completions string
	succeeded := o.num("status", "succeeded")
	if o.has("spec", "completions") {
		completions = itoa(succeeded) + "/" + itoa(o.num("spec", "completions"))
	} else if p := o.num("spec", "parallelism"); p > 1 {
		completions = itoa(succeeded) + "/1 of " + itoa(p)
	} else {
		completions = itoa(succeeded) + "/1"
	}
	var dur string
	start, startErr := time.Parse(time.RFC3339, o.str("status", "startTime"))
	switch {
	case !o.has("status", "startTime") || startErr != nil:
	case !o.has("status", "completionTime"):
		dur = humanDuration(now.Sub(start))
	default:
		end, _ := time.Parse(time.RFC3339, o.str("status", "completionTime"))
		dur = humanDuration(end.Sub(start))
	}
	st := "Running"
	switch {
	case jobCondition(o, "Complete"):
		st = "Complete"
	case jobCondition(o, "Failed"):
		st = "Failed"
	case o.deleting():
		st = "Terminating"
	case jobCondition(o, "Suspended"):
		st = "Suspended"
	case jobCondition(o, "FailureTarget"):
		st = "FailureTarget"
	case jobCondition(o, "SuccessCriteriaMet"):
		st = "SuccessCriteriaMet"
	}
	names, images := containerCells(o.list("spec", "template", "spec", "containers"))
	return []any{o.name(), st, completions, dur, o.age(now), names, images, formatLabelSelector(o.get("spec", "selector"))}, nil
}

func rowCronJob(o object, now time.Time) ([]any, []any) {
	last := "<none>"
	if o.has("status", "lastScheduleTime") {
		last = since(o.str("status", "lastScheduleTime"), now)
	}
	tz := "<none>"
	if o.has("spec", "timeZone") {
		tz = o.str("spec", "timeZone")
	}
	suspend := "<unset>" // printBoolPtr
	if b, ok := o.get("spec", "suspend").(bool); ok {
		suspend = "False"
		if b {
			suspend = "True"
		}
	}
	names, images := containerCells(o.list("spec", "jobTemplate", "spec", "template", "spec", "containers"))
	return []any{o.name(), o.str("spec", "schedule"), tz, suspend, int64(len(o.list("status", "active"))), last, o.age(now),
		names, images, formatLabelSelector(o.get("spec", "jobTemplate", "spec", "selector"))}, nil
}

func rowService(o object, now time.Time) ([]any, []any) {
	internalIP := "<none>"
	if ips := o.list("spec", "clusterIPs"); len(ips) > 0 {
		internalIP, _ = ips[0].(string)
	}
	ports := objects(o.list("spec", "ports"))
	pieces := make([]string, len(ports))
	for i, p := range ports {
		pieces[i] = itoa(p.num("port")) + "/" + p.str("protocol")
		if np := p.num("nodePort"); np > 0 {
			pieces[i] = itoa(p.num("port")) + ":" + itoa(np) + "/" + p.str("protocol")
		}
	}
	return []any{o.name(), o.str("spec", "type"), internalIP, serviceExternalIP(o), orNone(strings.Join(pieces, ",")), o.age(now),
		formatLabels(o.obj("spec", "selector"))}, nil
}

func stringsOf(l []any) []string {
	out := make([]string, 0, len(l))
	for _, v := range l {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// loadBalancerIngress is loadBalancerStatusStringer, wide: the IPs or hostnames, sorted and
// deduplicated.
func loadBalancerIngress(ingress []any) string {
	set := map[string]bool{}
	for _, in := range objects(ingress) {
		if ip := in.str("ip"); ip != "" {
			set[ip] = true
		} else if h := in.str("hostname"); h != "" {
			set[h] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sortStrings(out)
	return strings.Join(out, ",")
}

func serviceExternalIP(o object) string {
	external := stringsOf(o.list("spec", "externalIPs"))
	switch o.str("spec", "type") {
	case "ClusterIP", "NodePort":
		if len(external) > 0 {
			return strings.Join(external, ",")
		}
		return "<none>"
	case "LoadBalancer":
		lb := loadBalancerIngress(o.list("status", "loadBalancer", "ingress"))
		if len(external) > 0 {
			var results []string
			if lb != "" {
				results = append(results, strings.Split(lb, ",")...)
			}
			return strings.Join(append(results, external...), ",")
		}
		if lb != "" {
			return lb
		}
		return "<pending>"
	case "ExternalName":
		return o.str("spec", "externalName")
	}
	return "<unknown>"
}

func rowConfigMap(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), int64(len(o.obj("data")) + len(o.obj("binaryData"))), o.age(now)}, nil
}

func rowSecret(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("type"), int64(len(o.obj("data"))), o.age(now)}, nil
}

func rowNamespace(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("status", "phase"), o.age(now)}, nil
}

func rowServiceAccount(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.age(now)}, nil
}

func rowNode(o object, now time.Time) ([]any, []any) {
	var st []string
	for _, c := range objects(o.list("status", "conditions")) {
		if c.str("type") != "Ready" {
			continue
		}
		// The reference keeps the last condition of each type.
		st = st[:0]
		if c.str("status") == "True" {
			st = append(st, "Ready")
		} else {
			st = append(st, "NotReady")
		}
	}
	if len(st) == 0 {
		st = append(st, "Unknown")
	}
	if o.get("spec", "unschedulable") == true {
		st = append(st, "SchedulingDisabled")
	}
	roleSet := map[string]bool{}
	for k, v := range o.obj("metadata", "labels") {
		vs, _ := v.(string)
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if r := strings.TrimPrefix(k, "node-role.kubernetes.io/"); r != "" {
				roleSet[r] = true
			}
		case k == "kubernetes.io/role" && vs != "":
			roleSet[vs] = true
		}
	}
	roles := make([]string, 0, len(roleSet))
	for r := range roleSet {
		roles = append(roles, r)
	}
	sortStrings(roles)
	info := o.obj("status", "nodeInfo")
	unknown := func(s string) string {
		if s == "" {
			return "<unknown>"
		}
		return s
	}
	kernel := unknown(info.str("kernelVersion"))
	if a := info.str("architecture"); a != "" {
		kernel += " (" + a + ")"
	}
	address := func(typ string) string {
		for _, a := range objects(o.list("status", "addresses")) {
			if a.str("type") == typ {
				return a.str("address")
			}
		}
		return "<none>"
	}
	return []any{o.name(), strings.Join(st, ","), orNone(strings.Join(roles, ",")), o.age(now), info.str("kubeletVersion"),
		address("InternalIP"), address("ExternalIP"), unknown(info.str("osImage")), kernel, unknown(info.str("containerRuntimeVersion"))}, nil
}

func rowEvent(o object, now time.Time) ([]any, []any) {
	zero := func(s string) bool {
		if s == "" {
			return true
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		return err != nil || t.IsZero()
	}
	first := since(o.str("firstTimestamp"), now)
	if zero(o.str("firstTimestamp")) {
		first = since(o.str("eventTime"), now)
	}
	last := since(o.str("lastTimestamp"), now)
	if zero(o.str("lastTimestamp")) {
		last = first
	}
	count := o.num("count")
	if o.has("series") {
		last = since(o.str("series", "lastObservedTime"), now)
		count = o.num("series", "count")
	} else if count == 0 {
		count = 1
	}
	target := strings.ToLower(o.str("involvedObject", "kind"))
	if n := o.str("involvedObject", "name"); n != "" {
		target += "/" + n
	}
	component := o.str("source", "component")
	if component == "" {
		component = o.str("reportingComponent")
	}
	instance := o.str("source", "host")
	if instance == "" {
		instance = o.str("reportingInstance")
	}
	source := component
	if instance != "" {
		source = component + ", " + instance
	}
	return []any{last, o.str("type"), o.str("reason"), target, o.str("involvedObject", "fieldPath"), source,
		strings.TrimSpace(o.str("message")), first, count, o.name()}, nil
}

// eventsV1AsCore is an events.k8s.io/v1 Event in core/v1's fields, as the apiserver converts
// it to the internal Event the printer reads.
func eventsV1AsCore(o object) object {
	out := object{"metadata": o["metadata"], "type": o["type"], "reason": o["reason"], "message": o["note"],
		"involvedObject": o["regarding"], "firstTimestamp": o["deprecatedFirstTimestamp"], "lastTimestamp": o["deprecatedLastTimestamp"],
		"count": o["deprecatedCount"], "source": o["deprecatedSource"], "eventTime": o["eventTime"],
		"reportingComponent": o["reportingController"], "reportingInstance": o["reportingInstance"]}
	if s := o.obj("series"); s != nil {
		out["series"] = map[string]any(s)
	}
	return out
}

// endpointsCell is formatEndpoints with every port: at most three addresses (ip:port), then
// " + N more...".
func endpointsCell(o object) string {
	subsets := objects(o.list("subsets"))
	if len(subsets) == 0 {
		return "<none>"
	}
	var list []string
	const max = 3
	more := false
	count := 0
	for _, ss := range subsets {
		addrs := objects(ss.list("addresses"))
		ports := objects(ss.list("ports"))
		if len(ports) == 0 {
			count += len(addrs)
			for _, a := range addrs {
				if len(list) == max {
					more = true
					break
				}
				list = append(list, a.str("ip"))
			}
			continue
		}
		for _, p := range ports {
			count += len(addrs)
			for _, a := range addrs {
				if len(list) == max {
					more = true
					break
				}
				list = append(list, net.JoinHostPort(a.str("ip"), itoa(p.num("port"))))
			}
		}
	}
	ret := strings.Join(list, ",")
	if more {
		return ret + " + " + strconv.Itoa(count-max) + " more..."
	}
	return ret
}

func rowEndpoints(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), endpointsCell(o), o.age(now)}, nil
}

// listWithMore is listWithMoreString.
func listWithMore(list []string, more bool, count, max int) string {
	ret := strings.Join(list, ",")
	if more {
		return ret + " + " + strconv.Itoa(count-max) + " more..."
	}
	if ret == "" {
		return "<unset>"
	}
	return ret
}

func rowEndpointSlice(o object, now time.Time) ([]any, []any) {
	const max = 3
	var ports []string
	more, count := false, 0
	for _, p := range objects(o.list("ports")) {
		if len(ports) < max {
			n := "*"
			if p.has("port") {
				n = itoa(p.num("port"))
			} else if p.has("name") {
				n = p.str("name")
			}
			ports = append(ports, n)
		} else if len(ports) == max {
			more = true
		}
		count++
	}
	portsCell := listWithMore(ports, more, count, max)
	var addrs []string
	more, count = false, 0
	for _, e := range objects(o.list("endpoints")) {
		for _, a := range stringsOf(e.list("addresses")) {
			if len(addrs) < max {
				addrs = append(addrs, a)
			} else if len(addrs) == max {
				more = true
			}
			count++
		}
	}
	return []any{o.name(), o.str("addressType"), portsCell, listWithMore(addrs, more, count, max), o.age(now)}, nil
}

// accessModes is helper.GetAccessModesAsString: the short names in a fixed order, each once.
func accessModes(l []any) string {
	have := map[string]bool{}
	for _, m := range stringsOf(l) {
		have[m] = true
	}
	var out []string
	for _, m := range []struct{ mode, short string }{{"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}} {
		if have[m.mode] {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

// storageClassOf is GetPersistentVolume(Claim)Class: spec.storageClassName, else the beta
// annotation.
func storageClassOf(o object) string {
	if a := o.str("metadata", "annotations", "volume.beta.kubernetes.io/storage-class"); a != "" {
		return a
	}
	return o.str("spec", "storageClassName")
}

func rowPersistentVolume(o object, now time.Time) ([]any, []any) {
	claim := ""
	if o.has("spec", "claimRef") {
		claim = o.str("spec", "claimRef", "namespace") + "/" + o.str("spec", "claimRef", "name")
	}
	phase := o.str("status", "phase")
	if o.deleting() {
		phase = "Terminating"
	}
	volumeMode := "<unset>"
	if o.has("spec", "volumeMode") {
		volumeMode = o.str("spec", "volumeMode")
	}
	vac := "<unset>"
	if o.has("spec", "volumeAttributesClassName") {
		vac = o.str("spec", "volumeAttributesClassName")
	}
	size := o.str("spec", "capacity", "storage")
	if size == "" {
		size = "0"
	}
	return []any{o.name(), size, accessModes(o.list("spec", "accessModes")), o.str("spec", "persistentVolumeReclaimPolicy"),
		phase, claim, storageClassOf(o), vac, o.str("status", "reason"), o.age(now), volumeMode}, nil
}

func rowPersistentVolumeClaim(o object, now time.Time) ([]any, []any) {
	phase := o.str("status", "phase")
	if o.deleting() {
		phase = "Terminating"
	}
	vac := "<unset>"
	if o.has("spec", "volumeAttributesClassName") {
		vac = o.str("spec", "volumeAttributesClassName")
	}
	capacity, modes := "", ""
	if o.str("spec", "volumeName") != "" {
		modes = accessModes(o.list("status", "accessModes"))
		capacity = o.str("status", "capacity", "storage")
		if capacity == "" {
			capacity = "0"
		}
	}
	volumeMode := "<unset>"
	if o.has("spec", "volumeMode") {
		volumeMode = o.str("spec", "volumeMode")
	}
	return []any{o.name(), phase, o.str("spec", "volumeName"), capacity, modes, storageClassOf(o), vac, o.age(now), volumeMode}, nil
}

func rowPodTemplate(o object, _ time.Time) ([]any, []any) {
	names, images := containerCells(o.list("template", "spec", "containers"))
	return []any{o.name(), names, images, formatLabels(o.obj("template", "metadata", "labels"))}, nil
}

// resourceQuotaOrder is SortableResourceNames' order: by name.
func rowResourceQuota(o object, now time.Time) ([]any, []any) {
	hard := o.obj("status", "hard")
	used := o.obj("status", "used")
	names := make([]string, 0, len(hard))
	for k := range hard {
		names = append(names, k)
	}
	sortStrings(names)
	var req, lim []string
	for _, n := range names {
		u, _ := used[n].(string)
		if u == "" {
			u = "0"
		}
		h, _ := hard[n].(string)
		piece := n + ": " + u + "/" + h
		if parts := strings.Split(n, "."); len(parts) > 1 && parts[0] == "limits" {
			lim = append(lim, piece)
		} else {
			req = append(req, piece)
		}
	}
	return []any{o.name(), strings.Join(req, ", "), strings.Join(lim, ", "), o.age(now)}, nil
}

func rowComponentStatus(o object, _ time.Time) ([]any, []any) {
	st, msg, errText := "Unknown", "", ""
	for _, c := range objects(o.list("conditions")) {
		if c.str("type") == "Healthy" {
			if c.str("status") == "True" {
				st = "Healthy"
			} else {
				st = "Unhealthy"
			}
			msg, errText = c.str("message"), c.str("error")
			break
		}
	}
	return []any{o.name(), st, msg, errText}, nil
}

func rowScale(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.num("spec", "replicas"), o.num("status", "replicas"), o.age(now)}, nil
}

// intOrString prints an IntOrString as its String(): the number or the text.
func intOrString(v any) string {
	switch x := v.(type) {
	case int64:
		return itoa(x)
	case float64:
		return itoa(int64(x))
	case string:
		return x
	}
	return ""
}

func rowPDB(o object, now time.Time) ([]any, []any) {
	minA, maxU := "N/A", "N/A"
	if o.has("spec", "minAvailable") {
		minA = intOrString(o.get("spec", "minAvailable"))
	}
	if o.has("spec", "maxUnavailable") {
		maxU = intOrString(o.get("spec", "maxUnavailable"))
	}
	return []any{o.name(), minA, maxU, o.num("status", "disruptionsAllowed"), o.age(now)}, nil
}

func rowHPA(o object, now time.Time) ([]any, []any) {
	if o.str("apiVersion") == "autoscaling/v1" {
		o = hpaV1AsV2(o)
	}
	ref := o.str("spec", "scaleTargetRef", "kind") + "/" + o.str("spec", "scaleTargetRef", "name")
	minPods := "<unset>"
	if o.has("spec", "minReplicas") {
		minPods = itoa(o.num("spec", "minReplicas"))
	}
	return []any{o.name(), ref, hpaMetrics(o), minPods, o.num("spec", "maxReplicas"), o.num("status", "currentReplicas"), o.age(now)}, nil
}

// hpaV1AsV2 gives an autoscaling/v1 HPA the v2 fields the printer reads (the internal
// version is v2's): its CPU utilization target and current value as a Resource metric.
func hpaV1AsV2(o object) object {
	out := object{}
	for k, v := range o {
		out[k] = v
	}
	spec := map[string]any{}
	for k, v := range o.obj("spec") {
		spec[k] = v
	}
	status := map[string]any{}
	for k, v := range o.obj("status") {
		status[k] = v
	}
	if o.has("spec", "targetCPUUtilizationPercentage") {
		spec["metrics"] = []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
			"target": map[string]any{"type": "Utilization", "averageUtilization": o.num("spec", "targetCPUUtilizationPercentage")}}}}
		if o.has("status", "currentCPUUtilizationPercentage") {
			status["currentMetrics"] = []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
				"current": map[string]any{"averageUtilization": o.num("status", "currentCPUUtilizationPercentage")}}}}
		}
	}
	out["spec"], out["status"] = spec, status
	return out
}

// hpaMetrics is formatHPAMetrics over autoscaling/v2 fields.
func hpaMetrics(o object) string {
	specs := objects(o.list("spec", "metrics"))
	if len(specs) == 0 {
		return "<none>"
	}
	statuses := objects(o.list("status", "currentMetrics"))
	status := func(i int, typ string) object {
		if i < len(statuses) {
			return statuses[i].obj(typ)
		}
		return nil
	}
	var list []string
	for i, s := range specs {
		switch s.str("type") {
		case "External", "Object":
			key := strings.ToLower(s.str("type")[:1]) + s.str("type")[1:]
			src := s.obj(key)
			st := status(i, key)
			if src.has("target", "averageValue") {
				cur := "<unknown>"
				if st != nil && st.has("current", "averageValue") {
					cur = st.str("current", "averageValue")
				}
				list = append(list, cur+"/"+src.str("target", "averageValue")+" (avg)")
			} else {
				cur := "<unknown>"
				if st != nil {
					cur = quantityOrZero(st.get("current", "value"))
				}
				list = append(list, cur+"/"+quantityOrZero(src.get("target", "value")))
			}
		case "Pods":
			cur := "<unknown>"
			if st := status(i, "pods"); st != nil {
				cur = quantityOrZero(st.get("current", "averageValue"))
			}
			list = append(list, cur+"/"+quantityOrZero(s.get("pods", "target", "averageValue")))
		case "Resource", "ContainerResource":
			key := "resource"
			if s.str("type") == "ContainerResource" {
				key = "containerResource"
			}
			src := s.obj(key)
			st := status(i, key)
			if src.has("target", "averageValue") {
				cur := "<unknown>"
				if st != nil {
					cur = quantityOrZero(st.get("current", "averageValue"))
				}
				list = append(list, src.str("name")+": "+cur+"/"+src.str("target", "averageValue"))
			} else {
				cur := "<unknown>"
				if st != nil && st.has("current", "averageUtilization") {
					cur = itoa(st.num("current", "averageUtilization")) + "%"
				}
				target := "<auto>"
				if src.has("target", "averageUtilization") {
					target = itoa(src.num("target", "averageUtilization")) + "%"
				}
				list = append(list, src.str("name")+": "+cur+"/"+target)
			}
		default:
			list = append(list, "<unknown type>")
		}
	}
	const max = 2
	count := len(list)
	if count > max {
		return strings.Join(list[:max], ", ") + " + " + strconv.Itoa(count-max) + " more..."
	}
	return strings.Join(list, ", ")
}

// quantityOrZero is a quantity's String() where an unset one is the zero quantity "0".
func quantityOrZero(v any) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return "0"
}

func rowIngress(o object, now time.Time) ([]any, []any) {
	class := "<none>"
	if o.has("spec", "ingressClassName") {
		class = o.str("spec", "ingressClassName")
	}
	rules := objects(o.list("spec", "rules"))
	var hosts []string
	const max = 3
	more := false
	for _, r := range rules {
		if len(hosts) == max {
			more = true
		}
		if !more && r.str("host") != "" {
			hosts = append(hosts, r.str("host"))
		}
	}
	hostsCell := "*"
	if len(hosts) > 0 {
		hostsCell = strings.Join(hosts, ",")
		if more {
			hostsCell += " + " + strconv.Itoa(len(rules)-max) + " more..."
		}
	}
	ports := "80"
	if len(o.list("spec", "tls")) != 0 {
		ports = "80, 443"
	}
	return []any{o.name(), class, hostsCell, loadBalancerIngress(o.list("status", "loadBalancer", "ingress")), ports, o.age(now)}, nil
}

func rowIngressClass(o object, now time.Time) ([]any, []any) {
	name := o.name()
	if o.str("metadata", "annotations", "ingressclass.kubernetes.io/is-default-class") == "true" {
		name += " (default)"
	}
	params := "<none>"
	if p := o.obj("spec", "parameters"); p != nil {
		params = p.str("kind")
		if p.has("apiGroup") {
			params += "." + p.str("apiGroup")
		}
		params += "/" + p.str("name")
	}
	return []any{name, o.str("spec", "controller"), params, o.age(now)}, nil
}

func rowNetworkPolicy(o object, now time.Time) ([]any, []any) {
	sel := o.get("spec", "podSelector")
	if sel == nil {
		sel = map[string]any{}
	}
	return []any{o.name(), formatLabelSelector(sel), o.age(now)}, nil
}

func rowServiceCIDR(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), strings.Join(stringsOf(o.list("spec", "cidrs")), ","), o.age(now)}, nil
}

func rowIPAddress(o object, now time.Time) ([]any, []any) {
	parent := "<none>"
	if p := o.obj("spec", "parentRef"); p != nil {
		gr := p.str("resource")
		if g := p.str("group"); g != "" {
			gr += "." + g
		}
		parent = strings.ToLower(gr)
		if ns := p.str("namespace"); ns != "" {
			parent += "/" + ns
		}
		parent += "/" + p.str("name")
	}
	return []any{o.name(), parent, o.age(now)}, nil
}

// subjects is rbac.SubjectsStrings: users, groups and namespace/name service accounts.
func rowRoleBinding(o object, now time.Time) ([]any, []any) {
	var users, groups, sas []string
	for _, s := range objects(o.list("subjects")) {
		switch s.str("kind") {
		case "ServiceAccount":
			sas = append(sas, s.str("namespace")+"/"+s.str("name"))
		case "User":
			users = append(users, s.str("name"))
		case "Group":
			groups = append(groups, s.str("name"))
		}
	}
	return []any{o.name(), o.str("roleRef", "kind") + "/" + o.str("roleRef", "name"), o.age(now),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}, nil
}

func rowStorageClass(effectiveDefault string) func(o object, now time.Time) ([]any, []any) {
	return func(o object, now time.Time) ([]any, []any) {
		name := o.name()
		if effectiveDefault != "" && name == effectiveDefault {
			name += " (default)"
		}
		reclaim := "Delete"
		if o.has("reclaimPolicy") {
			reclaim = o.str("reclaimPolicy")
		}
		binding := "Immediate"
		if o.has("volumeBindingMode") {
			binding = o.str("volumeBindingMode")
		}
		expand := o.get("allowVolumeExpansion") == true
		return []any{name, o.str("provisioner"), reclaim, binding, expand, o.age(now)}, nil
	}
}

func isDefaultStorageClass(o object) bool {
	ann := o.obj("metadata", "annotations")
	return ann.str("storageclass.kubernetes.io/is-default-class") == "true" || ann.str("storageclass.beta.kubernetes.io/is-default-class") == "true"
}

// storageClassList marks the effective default of a list: the newest default class, by name
// on a tie.
func storageClassList(items []any) (*printer, []any) {
	var best object
	var bestAt time.Time
	for _, it := range objects(items) {
		if !isDefaultStorageClass(it) {
			continue
		}
		at, _ := time.Parse(time.RFC3339, it.str("metadata", "creationTimestamp"))
		switch {
		case best == nil, at.After(bestAt), at.Equal(bestAt) && it.name() < best.name():
			best, bestAt = it, at
		}
	}
	cols, _ := printerColumns()
	name := ""
	if best != nil {
		name = best.name()
	}
	return &printer{columns: cols["storage.k8s.io/StorageClass"], row: rowStorageClass(name)}, items
}

func rowCSIDriver(o object, now time.Time) ([]any, []any) {
	boolOr := func(def bool, path ...string) bool {
		if b, ok := o.get(path...).(bool); ok {
			return b
		}
		return def
	}
	modes := strings.Join(stringsOf(o.list("spec", "volumeLifecycleModes")), ",")
	tokens := "<unset>"
	if o.has("spec", "tokenRequests") {
		var auds []string
		for _, t := range objects(o.list("spec", "tokenRequests")) {
			auds = append(auds, t.str("audience"))
		}
		tokens = strings.Join(auds, ",")
	}
	return []any{o.name(), boolOr(true, "spec", "attachRequired"), boolOr(false, "spec", "podInfoOnMount"), boolOr(false, "spec", "storageCapacity"),
		tokens, boolOr(false, "spec", "requiresRepublish"), orNone(modes), o.age(now)}, nil
}

func rowCSINode(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), int64(len(o.list("spec", "drivers"))), o.age(now)}, nil
}

func rowVolumeAttachment(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("spec", "attacher"), o.str("spec", "source", "persistentVolumeName"), o.str("spec", "nodeName"),
		o.get("status", "attached") == true, o.age(now)}, nil
}

func rowVolumeAttributesClass(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("driverName"), o.age(now)}, nil
}

func rowLease(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("spec", "holderIdentity"), o.age(now)}, nil
}

func rowLeaseCandidate(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("spec", "leaseName"), o.str("spec", "binaryVersion"), o.str("spec", "emulationVersion"), o.age(now)}, nil
}

func rowPriorityClass(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.num("value"), o.get("globalDefault") == true, o.age(now), o.str("preemptionPolicy")}, nil
}

func rowRuntimeClass(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("handler"), o.age(now)}, nil
}

func rowWebhookConfiguration(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), int64(len(o.list("webhooks"))), o.age(now)}, nil
}

func rowAdmissionPolicy(field string) func(o object, now time.Time) ([]any, []any) {
	return func(o object, now time.Time) ([]any, []any) {
		pk := "<unset>"
		if p := o.obj("spec", "paramKind"); p != nil {
			pk = p.str("apiVersion") + "/" + p.str("kind")
		}
		return []any{o.name(), int64(len(o.list("spec", field))), pk, o.age(now)}, nil
	}
}

func rowAdmissionPolicyBinding(o object, now time.Time) ([]any, []any) {
	param := "<unset>"
	if pr := o.obj("spec", "paramRef"); pr != nil {
		switch {
		case pr.str("name") != "" && pr.str("namespace") != "":
			param = pr.str("namespace") + "/" + pr.str("name")
		case pr.str("name") != "":
			param = "*/" + pr.str("name")
		case pr.has("selector"):
			param = labelSelectorStructString(pr.obj("selector"))
		}
	}
	return []any{o.name(), o.str("spec", "policyName"), param, o.age(now)}, nil
}

// labelSelectorStructString is metav1.LabelSelector's String(): its Go struct printed by
// the gogo-protobuf generated String method.
func labelSelectorStructString(s object) string {
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	ml := s.obj("matchLabels")
	keys := make([]string, 0, len(ml))
	for k := range ml {
		keys = append(keys, k)
	}
	sortStrings(keys)
	for _, k := range keys {
		v, _ := ml[k].(string)
		b.WriteString(k + ": " + v + ",")
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, e := range objects(s.list("matchExpressions")) {
		b.WriteString("LabelSelectorRequirement{Key:" + e.str("key") + ",Operator:" + e.str("operator") + ",Values:[" + strings.Join(stringsOf(e.list("values")), " ") + "],},")
	}
	b.WriteString("},}")
	return b.String()
}

func rowFlowSchema(o object, now time.Time) ([]any, []any) {
	dm := "<none>"
	if o.has("spec", "distinguisherMethod") {
		dm = o.str("spec", "distinguisherMethod", "type")
	}
	bad := "?"
	for _, c := range objects(o.list("status", "conditions")) {
		if c.str("type") == "Dangling" {
			bad = c.str("status")
			break
		}
	}
	return []any{o.name(), o.str("spec", "priorityLevelConfiguration", "name"), o.num("spec", "matchingPrecedence"), dm, o.age(now), bad}, nil
}

// flowSchemaList lists FlowSchemas as FlowSchemaSequence sorts them: by matchingPrecedence,
// then name.
func flowSchemaList(items []any) (*printer, []any) {
	sorted := append([]any(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := object(asMap(sorted[i])), object(asMap(sorted[j]))
		if pa, pb := a.num("spec", "matchingPrecedence"), b.num("spec", "matchingPrecedence"); pa != pb {
			return pa < pb
		}
		return a.name() < b.name()
	})
	cols, _ := printerColumns()
	return &printer{columns: cols["flowcontrol.apiserver.k8s.io/FlowSchema"], row: rowFlowSchema}, sorted
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func rowPriorityLevelConfiguration(o object, now time.Time) ([]any, []any) {
	var ncs, queues, hand, qll any = "<none>", "<none>", "<none>", "<none>"
	if l := o.obj("spec", "limited"); l != nil {
		ncs = l.num("nominalConcurrencyShares")
		if q := l.obj("limitResponse", "queuing"); q != nil {
			queues, hand, qll = q.num("queues"), q.num("handSize"), q.num("queueLengthLimit")
		}
	}
	return []any{o.name(), o.str("spec", "type"), ncs, queues, hand, qll, o.age(now)}, nil
}

func rowCSR(o object, now time.Time) ([]any, []any) {
	var approved, denied, failed bool
	for _, c := range objects(o.list("status", "conditions")) {
		switch c.str("type") {
		case "Approved":
			approved = true
		case "Denied":
			denied = true
		case "Failed":
			failed = true
		}
	}
	st := "Pending"
	if denied {
		st = "Denied"
	} else if approved {
		st = "Approved"
	}
	if failed {
		st += ",Failed"
	}
	if o.str("status", "certificate") != "" {
		st += ",Issued"
	}
	dur := "<none>"
	if o.has("spec", "expirationSeconds") {
		dur = humanDuration(time.Duration(o.num("spec", "expirationSeconds")) * time.Second)
	}
	return []any{o.name(), o.age(now), orNone(o.str("spec", "signerName")), o.str("spec", "username"), dur, st}, nil
}

func rowClusterTrustBundle(o object, _ time.Time) ([]any, []any) {
	return []any{o.name(), orNone(o.str("spec", "signerName"))}, nil
}

func rowStorageVersion(o object, now time.Time) ([]any, []any) {
	common := "<unset>"
	if o.has("status", "commonEncodingVersion") {
		common = o.str("status", "commonEncodingVersion")
	}
	const max = 3
	var list []string
	more, count := false, 0
	for _, sv := range objects(o.list("status", "storageVersions")) {
		if len(list) < max {
			list = append(list, sv.str("apiServerID")+"="+sv.str("encodingVersion"))
		} else if len(list) == max {
			more = true
		}
		count++
	}
	return []any{o.name(), common, listWithMore(list, more, count, max), o.age(now)}, nil
}

func sortStrings(s []string) { sort.Strings(s) }

func rowResourceClaim(o object, now time.Time) ([]any, []any) {
	var states []string
	if o.deleting() {
		states = append(states, "deleted")
	}
	if !o.has("status", "allocation") {
		if !o.deleting() {
			states = append(states, "pending")
		}
	} else {
		states = append(states, "allocated")
		if len(o.list("status", "reservedFor")) > 0 {
			states = append(states, "reserved")
		}
	}
	return []any{o.name(), strings.Join(states, ","), o.age(now)}, nil
}

func rowResourceSlice(o object, now time.Time) ([]any, []any) {
	return []any{o.name(), o.str("spec", "nodeName"), o.str("spec", "driver"), o.str("spec", "pool", "name"), o.age(now)}, nil
}

func rowDeviceTaintRule(o object, now time.Time) ([]any, []any) {
	added := ""
	if o.has("spec", "taint", "timeAdded") {
		added = since(o.str("spec", "taint", "timeAdded"), now)
	}
	return []any{o.name(), o.str("spec", "taint", "key"), o.str("spec", "taint", "value"), o.str("spec", "taint", "effect"), added, o.age(now)}, nil
}

func rowPodCertificateRequest(o object, _ time.Time) ([]any, []any) {
	state := "Pending"
	for _, c := range objects(o.list("status", "conditions")) {
		switch c.str("type") {
		case "Issued", "Denied", "Failed":
			state = c.str("type")
		}
	}
	return []any{o.name(), o.str("spec", "podName"), o.str("spec", "serviceAccountName"), o.str("spec", "nodeName"), o.str("spec", "signerName"), state,
		formatLabels(o.obj("spec", "unverifiedUserAnnotations"))}, nil
}

func rowStorageVersionMigration(o object, _ time.Time) ([]any, []any) {
	gr := o.str("spec", "resource", "resource")
	if g := o.str("spec", "resource", "group"); g != "" {
		gr += "." + g
	}
	st := "Unknown"
	for _, c := range objects(o.list("status", "conditions")) {
		if c.str("status") != "True" {
			continue
		}
		switch c.str("type") {
		case "Running", "Failed", "Succeeded":
			st = c.str("type")
		}
	}
	return []any{o.name(), gr, st}, nil
}
