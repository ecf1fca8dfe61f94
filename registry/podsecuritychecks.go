package registry

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The Pod Security Standards as the PodSecurity admission plugin of kube-apiserver 1.37 checks
// them (k8s.io/pod-security-admission policy, v0.37.2): each check looks at a Pod's metadata and
// spec (v1, unstructured) and either allows it or gives a reason and a detail. A level and a
// version select the checks: every version from v1.0 up to the newest one a check changed in
// (v1.37) has its own set; "latest" and newer versions use v1.37's. Baseline's checks run
// first, then restricted's, each level's in the order of their IDs; a restricted check that
// tightens a baseline one (capabilities, /proc mount, seccomp, volumes) replaces it.

// psLevel is a Pod Security Standards level.
type psLevel string

const (
	psPrivileged psLevel = "privileged"
	psBaseline   psLevel = "baseline"
	psRestricted psLevel = "restricted"
)

// psRank orders the levels: privileged < baseline < restricted.
func psRank(l psLevel) int {
	switch l {
	case psBaseline:
		return 1
	case psRestricted:
		return 2
	}
	return 0
}

// psVersion is a policy version: v1.<minor>, or latest. The zero value is v1.0.
type psVersion struct {
	minor  int
	latest bool
}

func (v psVersion) String() string {
	if v.latest {
		return "latest"
	}
	return "v1." + strconv.Itoa(v.minor)
}

// psNewestMinor is the newest version any check changed in (sysctls, v1.37): "latest" and any
// newer version evaluate as it does.
const psNewestMinor = 37

// psLevelVersion is a level at a version, printed "restricted:latest".
type psLevelVersion struct {
	level   psLevel
	version psVersion
}

func (lv psLevelVersion) String() string { return string(lv.level) + ":" + lv.version.String() }

// psResult is one check's finding: an empty reason allows.
type psResult struct {
	reason, detail string
}

// psCheckFn is one version of a check.
type psCheckFn func(meta, spec map[string]any) psResult

// psCheck is a check with the versions it changed in (minimum minor, ascending); overrides
// names the baseline check a restricted one replaces where both apply.
type psCheck struct {
	id        string
	versions  []psVersioned
	overrides string
}

type psVersioned struct {
	minor int
	fn    psCheckFn
}

// at is the check's version for minor, nil before it existed.
func (c psCheck) at(minor int) psCheckFn {
	var fn psCheckFn
	for _, v := range c.versions {
		if v.minor <= minor {
			fn = v.fn
		}
	}
	return fn
}

// psBaselineChecks and psRestrictedChecks are sorted by ID, the order the evaluator runs them
// (TestPodSecurityCheckOrder keeps them so).
var (
	psBaselineChecks = []psCheck{
		{id: "appArmorProfile", versions: []psVersioned{{0, psAppArmor}}},
		{id: "capabilities_baseline", versions: []psVersioned{{0, psCapabilitiesBaseline}}},
		{id: "hostNamespaces", versions: []psVersioned{{0, psHostNamespaces}}},
		{id: "hostPathVolumes", versions: []psVersioned{{0, psHostPathVolumes}}},
		{id: "hostPorts", versions: []psVersioned{{0, psHostPorts}}},
		{id: "hostProbesAndHostLifecycle", versions: []psVersioned{{34, psHostProbes}}},
		{id: "privileged", versions: []psVersioned{{0, psPrivilegedCheck}}},
		{id: "procMount", versions: []psVersioned{{0, psProcMount}, {35, psUserNamespaceRelaxed(psProcMount)}}},
		{id: "seLinuxOptions", versions: []psVersioned{{0, psSELinux(psSELinuxTypes10)}, {31, psSELinux(psSELinuxTypes131)}}},
		{id: "seccompProfile_baseline", versions: []psVersioned{{0, psSeccompAnnotations}, {19, psSeccompBaseline}}},
		{id: "sysctls", versions: []psVersioned{{0, psSysctls(psSysctls10)}, {27, psSysctls(psSysctls127)},
			{29, psSysctls(psSysctls129)}, {32, psSysctls(psSysctls132)}, {37, psSysctls(psSysctls137)}}},
		{id: "windowsHostProcess", versions: []psVersioned{{0, psWindowsHostProcess}}},
	}
	psRestrictedChecks = []psCheck{
		{id: "allowPrivilegeEscalation", versions: []psVersioned{{8, psAllowPrivilegeEscalation}, {25, psNotWindows(psAllowPrivilegeEscalation)}}},
		{id: "capabilities_restricted", overrides: "capabilities_baseline",
			versions: []psVersioned{{22, psCapabilitiesRestricted}, {25, psNotWindows(psCapabilitiesRestricted)}}},
		{id: "procMount_restricted", overrides: "procMount", versions: []psVersioned{{35, psProcMount}}},
		{id: "restrictedVolumes", overrides: "hostPathVolumes", versions: []psVersioned{{0, psRestrictedVolumes}}},
		{id: "runAsNonRoot", versions: []psVersioned{{0, psRunAsNonRoot}, {35, psUserNamespaceRelaxed(psRunAsNonRoot)}}},
		{id: "runAsUser", versions: []psVersioned{{23, psRunAsUser}, {35, psUserNamespaceRelaxed(psRunAsUser)}}},
		{id: "seccompProfile_restricted", overrides: "seccompProfile_baseline",
			versions: []psVersioned{{19, psSeccompRestricted}, {25, psNotWindows(psSeccompRestricted)}}},
	}
)

// psEvaluate runs lv's checks on a Pod's (or a template's) metadata and spec and returns the
// failed ones' reasons and details, in order; none when the pod meets the level.
func psEvaluate(lv psLevelVersion, meta, spec map[string]any) []psResult {
	if lv.level == psPrivileged {
		return nil
	}
	minor := lv.version.minor
	if lv.version.latest || minor > psNewestMinor {
		minor = psNewestMinor
	}
	var fns []psCheckFn
	overridden := map[string]bool{}
	if lv.level == psRestricted {
		for _, c := range psRestrictedChecks {
			if c.overrides != "" && c.at(minor) != nil {
				overridden[c.overrides] = true
			}
		}
	}
	for _, c := range psBaselineChecks {
		if fn := c.at(minor); fn != nil && !overridden[c.id] {
			fns = append(fns, fn)
		}
	}
	if lv.level == psRestricted {
		for _, c := range psRestrictedChecks {
			if fn := c.at(minor); fn != nil {
				fns = append(fns, fn)
			}
		}
	}
	var out []psResult
	for _, fn := range fns {
		if r := fn(meta, spec); r.reason != "" {
			out = append(out, r)
		}
	}
	return out
}

// psReasons joins the reasons: the namespace warnings list existing pods by them.
func psReasons(rs []psResult) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.reason
	}
	return strings.Join(s, ", ")
}

// psDetail joins reasons with their details: "reason (detail), reason".
func psDetail(rs []psResult) string {
	var b strings.Builder
	for i, r := range rs {
		b.WriteString(r.reason)
		if r.detail != "" {
			b.WriteString(" (" + r.detail + ")")
		}
		if i != len(rs)-1 {
			b.WriteString(", ")
		}
	}
	return b.String()
}

// psContainers lists a spec's init containers, containers and ephemeral containers, in the
// policy's visiting order.
func psContainers(spec map[string]any) []map[string]any {
	var out []map[string]any
	for _, k := range []string{"initContainers", "containers", "ephemeralContainers"} {
		l, _ := spec[k].([]any)
		for _, c := range l {
			if m, ok := c.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func psMap(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

func psString(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// psInt is an integer field's value; ok is false when it is not set.
func psInt(m map[string]any, k string) (int64, bool) {
	switch n := m[k].(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

func psName(c map[string]any) string { return psString(c, "name") }

func psPlural(singular, plural string, n int) string {
	if n == 1 {
		return singular
	}
	return plural
}

func psQuote(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return `"` + strings.Join(items, `", "`) + `"`
}

// psSet is a sorted set of strings, as sets.String's List gives it.
type psSet map[string]bool

func (s psSet) list() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func psWindows(spec map[string]any) bool { return psString(psMap(spec, "os"), "name") == "windows" }

// psNotWindows is a check from v1.25 on: Windows pods (spec.os.name) pass it.
func psNotWindows(fn psCheckFn) psCheckFn {
	return func(meta, spec map[string]any) psResult {
		if psWindows(spec) {
			return psResult{}
		}
		return fn(meta, spec)
	}
}

// psUserNamespaceRelaxed is a check from v1.35 on: a pod in a user namespace (hostUsers:
// false) passes it.
func psUserNamespaceRelaxed(fn psCheckFn) psCheckFn {
	return func(meta, spec map[string]any) psResult {
		if h, ok := spec["hostUsers"].(bool); ok && !h {
			return psResult{}
		}
		return fn(meta, spec)
	}
}

func psAllowPrivilegeEscalation(_, spec map[string]any) psResult {
	var bad []string
	for _, c := range psContainers(spec) {
		if v, ok := psMap(c, "securityContext")["allowPrivilegeEscalation"].(bool); !ok || v {
			bad = append(bad, psName(c))
		}
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"allowPrivilegeEscalation != false",
		fmt.Sprintf("%s %s must set securityContext.allowPrivilegeEscalation=false", psPlural("container", "containers", len(bad)), psQuote(bad))}
}

func psAppArmorTypeAllowed(t string) bool { return t == "RuntimeDefault" || t == "Localhost" }

func psAppArmor(meta, spec map[string]any) psResult {
	var setters []string
	values := psSet{}
	if p := psMap(spec, "securityContext", "appArmorProfile"); p != nil {
		if t := psString(p, "type"); !psAppArmorTypeAllowed(t) {
			setters = append(setters, "pod")
			values[t] = true
		}
	}
	var bad []string
	for _, c := range psContainers(spec) {
		if p := psMap(c, "securityContext", "appArmorProfile"); p != nil {
			if t := psString(p, "type"); !psAppArmorTypeAllowed(t) {
				bad = append(bad, psName(c))
				values[t] = true
			}
		}
	}
	if len(bad) > 0 {
		setters = append(setters, fmt.Sprintf("%s %s", psPlural("container", "containers", len(bad)), psQuote(bad)))
	}
	var annotations []string
	for k, v := range psMap(meta, "annotations") {
		s, _ := v.(string)
		if strings.HasPrefix(k, "container.apparmor.security.beta.kubernetes.io/") &&
			!(s == "" || s == "runtime/default" || strings.HasPrefix(s, "localhost/")) {
			annotations = append(annotations, fmt.Sprintf("%s=%q", k, s))
		}
	}
	list := values.list()
	if len(annotations) > 0 {
		sort.Strings(annotations)
		list = append(list, annotations...)
		setters = append(setters, psPlural("annotation", "annotations", len(annotations)))
	}
	if len(setters) == 0 {
		return psResult{}
	}
	return psResult{psPlural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(list)),
		fmt.Sprintf("%s must not set AppArmor profile type to %s", strings.Join(setters, " and "), psQuote(list))}
}

// psDefaultCapabilities are the container runtimes' default capabilities, the ones baseline
// lets a container add.
var psDefaultCapabilities = map[string]bool{"AUDIT_WRITE": true, "CHOWN": true, "DAC_OVERRIDE": true,
	"FOWNER": true, "FSETID": true, "KILL": true, "MKNOD": true, "NET_BIND_SERVICE": true, "SETFCAP": true,
	"SETGID": true, "SETPCAP": true, "SETUID": true, "SYS_CHROOT": true}

func psCapabilityList(c map[string]any, k string) ([]string, bool) {
	caps := psMap(c, "securityContext", "capabilities")
	if caps == nil {
		return nil, false
	}
	l, _ := caps[k].([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out, true
}

func psCapabilitiesBaseline(_, spec map[string]any) psResult {
	var bad []string
	caps := psSet{}
	for _, c := range psContainers(spec) {
		add, _ := psCapabilityList(c, "add")
		valid := true
		for _, a := range add {
			if !psDefaultCapabilities[a] {
				valid = false
				caps[a] = true
			}
		}
		if !valid {
			bad = append(bad, psName(c))
		}
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"non-default capabilities", fmt.Sprintf("%s %s must not include %s in securityContext.capabilities.add",
		psPlural("container", "containers", len(bad)), psQuote(bad), psQuote(caps.list()))}
}

func psCapabilitiesRestricted(_, spec map[string]any) psResult {
	var missingDrop, adding []string
	caps := psSet{}
	for _, c := range psContainers(spec) {
		drop, ok := psCapabilityList(c, "drop")
		if !ok {
			missingDrop = append(missingDrop, psName(c))
			continue
		}
		all := false
		for _, d := range drop {
			if d == "ALL" {
				all = true
				break
			}
		}
		if !all {
			missingDrop = append(missingDrop, psName(c))
		}
		add, _ := psCapabilityList(c, "add")
		forbidden := false
		for _, a := range add {
			if a != "NET_BIND_SERVICE" {
				forbidden = true
				caps[a] = true
			}
		}
		if forbidden {
			adding = append(adding, psName(c))
		}
	}
	var details []string
	if len(missingDrop) > 0 {
		details = append(details, fmt.Sprintf(`%s %s must set securityContext.capabilities.drop=["ALL"]`,
			psPlural("container", "containers", len(missingDrop)), psQuote(missingDrop)))
	}
	if len(adding) > 0 {
		details = append(details, fmt.Sprintf(`%s %s must not include %s in securityContext.capabilities.add`,
			psPlural("container", "containers", len(adding)), psQuote(adding), psQuote(caps.list())))
	}
	if len(details) == 0 {
		return psResult{}
	}
	return psResult{"unrestricted capabilities", strings.Join(details, "; ")}
}

func psHostNamespaces(_, spec map[string]any) psResult {
	var set []string
	for _, k := range []string{"hostNetwork", "hostPID", "hostIPC"} {
		if spec[k] == true {
			set = append(set, k+"=true")
		}
	}
	if len(set) == 0 {
		return psResult{}
	}
	return psResult{"host namespaces", strings.Join(set, ", ")}
}

func psVolumes(spec map[string]any) []map[string]any {
	l, _ := spec["volumes"].([]any)
	out := make([]map[string]any, 0, len(l))
	for _, v := range l {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func psHostPathVolumes(_, spec map[string]any) psResult {
	var bad []string
	for _, v := range psVolumes(spec) {
		if psMap(v, "hostPath") != nil {
			bad = append(bad, psName(v))
		}
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"hostPath volumes", fmt.Sprintf("%s %s", psPlural("volume", "volumes", len(bad)), psQuote(bad))}
}

func psHostPorts(_, spec map[string]any) psResult {
	var bad []string
	ports := psSet{}
	for _, c := range psContainers(spec) {
		valid := true
		l, _ := c["ports"].([]any)
		for _, p := range l {
			m, _ := p.(map[string]any)
			if n, _ := psInt(m, "hostPort"); n != 0 {
				valid = false
				ports[strconv.Itoa(int(int32(n)))] = true
			}
		}
		if !valid {
			bad = append(bad, psName(c))
		}
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"hostPort", fmt.Sprintf("%s %s %s %s %s", psPlural("container", "containers", len(bad)), psQuote(bad),
		psPlural("uses", "use", len(bad)), psPlural("hostPort", "hostPorts", len(ports)), strings.Join(ports.list(), ", "))}
}

// psHandlerHosts are the hosts an httpGet or tcpSocket handler (a probe's or a lifecycle
// hook's) names.
func psHandlerHosts(h map[string]any) []string {
	var out []string
	for _, k := range []string{"httpGet", "tcpSocket"} {
		if host := psString(psMap(h, k), "host"); host != "" {
			out = append(out, host)
		}
	}
	return out
}

func psHostProbes(_, spec map[string]any) psResult {
	bad, hosts := psSet{}, psSet{}
	for _, c := range psContainers(spec) {
		var handlers []map[string]any
		for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
			handlers = append(handlers, psMap(c, k))
		}
		for _, k := range []string{"postStart", "preStop"} {
			handlers = append(handlers, psMap(c, "lifecycle", k))
		}
		for _, h := range handlers {
			if hs := psHandlerHosts(h); len(hs) > 0 {
				bad[psName(c)] = true
				for _, x := range hs {
					hosts[x] = true
				}
			}
		}
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"probe or lifecycle host", fmt.Sprintf("%s %s %s %s %s", psPlural("container", "containers", len(bad)), psQuote(bad.list()),
		psPlural("uses", "use", len(bad)), psPlural("probe or lifecycle host", "probe or lifecycle hosts", len(hosts)), psQuote(hosts.list()))}
}

func psPrivilegedCheck(_, spec map[string]any) psResult {
	var bad []string
	for _, c := range psContainers(spec) {
		if psMap(c, "securityContext")["privileged"] == true {
			bad = append(bad, psName(c))
		}
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"privileged", fmt.Sprintf("%s %s must not set securityContext.privileged=true", psPlural("container", "containers", len(bad)), psQuote(bad))}
}

func psProcMount(_, spec map[string]any) psResult {
	var bad []string
	types := psSet{}
	for _, c := range psContainers(spec) {
		pm, ok := psMap(c, "securityContext")["procMount"].(string)
		if ok && pm != "Default" {
			bad = append(bad, psName(c))
			types[pm] = true
		}
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"procMount", fmt.Sprintf("%s %s must not set securityContext.procMount to %s",
		psPlural("container", "containers", len(bad)), psQuote(bad), psQuote(types.list()))}
}

var (
	psSELinuxTypes10  = psSet{"": true, "container_t": true, "container_init_t": true, "container_kvm_t": true}
	psSELinuxTypes131 = psSet{"": true, "container_t": true, "container_init_t": true, "container_kvm_t": true, "container_engine_t": true}
)

func psSELinux(allowed psSet) psCheckFn {
	return func(_, spec map[string]any) psResult {
		var setters []string
		types := psSet{}
		setUser, setRole := false, false
		valid := func(o map[string]any) bool {
			ok := true
			if t := psString(o, "type"); !allowed[t] {
				ok = false
				types[t] = true
			}
			if psString(o, "user") != "" {
				ok, setUser = false, true
			}
			if psString(o, "role") != "" {
				ok, setRole = false, true
			}
			return ok
		}
		if o := psMap(spec, "securityContext", "seLinuxOptions"); o != nil && !valid(o) {
			setters = append(setters, "pod")
		}
		var bad []string
		for _, c := range psContainers(spec) {
			if o := psMap(c, "securityContext", "seLinuxOptions"); o != nil && !valid(o) {
				bad = append(bad, psName(c))
			}
		}
		if len(bad) > 0 {
			setters = append(setters, fmt.Sprintf("%s %s", psPlural("container", "containers", len(bad)), psQuote(bad)))
		}
		if len(setters) == 0 {
			return psResult{}
		}
		var data []string
		if len(types) > 0 {
			data = append(data, fmt.Sprintf("%s %s", psPlural("type", "types", len(types)), psQuote(types.list())))
		}
		if setUser {
			data = append(data, "user may not be set")
		}
		if setRole {
			data = append(data, "role may not be set")
		}
		return psResult{"seLinuxOptions", fmt.Sprintf("%s set forbidden securityContext.seLinuxOptions: %s", strings.Join(setters, " and "), strings.Join(data, "; "))}
	}
}

// psSeccompAnnotations is seccompProfile_baseline before v1.19: the alpha annotations.
func psSeccompAnnotations(meta, spec map[string]any) psResult {
	ann := psMap(meta, "annotations")
	validValue := func(v string) bool {
		return v == "runtime/default" || v == "docker/default" || strings.HasPrefix(v, "localhost/")
	}
	forbidden := psSet{}
	const podKey = "seccomp.security.alpha.kubernetes.io/pod"
	if v, ok := ann[podKey]; ok {
		if s, _ := v.(string); !validValue(s) {
			forbidden[fmt.Sprintf("%s=%q", podKey, s)] = true
		}
	}
	for _, c := range psContainers(spec) {
		key := "container.seccomp.security.alpha.kubernetes.io/" + psName(c)
		if v, ok := ann[key]; ok {
			if s, _ := v.(string); !validValue(s) {
				forbidden[fmt.Sprintf("%s=%q", key, s)] = true
			}
		}
	}
	if len(forbidden) == 0 {
		return psResult{}
	}
	return psResult{"seccompProfile", fmt.Sprintf("forbidden %s %s", psPlural("annotation", "annotations", len(forbidden)), strings.Join(forbidden.list(), ", "))}
}

func psSeccompTypeValid(t string) bool { return t == "Localhost" || t == "RuntimeDefault" }

// psSeccomp is seccompProfile_baseline (from v1.19) and, with requireSet,
// seccompProfile_restricted: a pod or container may not set an Unconfined (or other) profile,
// and under restricted each container must have one, its own or the pod's.
func psSeccomp(requireSet bool) psCheckFn {
	return func(_, spec map[string]any) psResult {
		var setters []string
		values := psSet{}
		podSet := false
		if p := psMap(spec, "securityContext", "seccompProfile"); p != nil {
			if t := psString(p, "type"); !psSeccompTypeValid(t) {
				setters = append(setters, "pod")
				values[t] = true
			} else {
				podSet = true
			}
		}
		var bad, implicit []string
		for _, c := range psContainers(spec) {
			if p := psMap(c, "securityContext", "seccompProfile"); p != nil {
				if t := psString(p, "type"); !psSeccompTypeValid(t) {
					bad = append(bad, psName(c))
					values[t] = true
				}
			} else if !podSet {
				implicit = append(implicit, psName(c))
			}
		}
		if len(bad) > 0 {
			setters = append(setters, fmt.Sprintf("%s %s", psPlural("container", "containers", len(bad)), psQuote(bad)))
		}
		if len(setters) > 0 {
			return psResult{"seccompProfile", fmt.Sprintf("%s must not set securityContext.seccompProfile.type to %s", strings.Join(setters, " and "), psQuote(values.list()))}
		}
		if requireSet && len(implicit) > 0 {
			return psResult{"seccompProfile", fmt.Sprintf(`pod or %s %s must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
				psPlural("container", "containers", len(implicit)), psQuote(implicit))}
		}
		return psResult{}
	}
}

var (
	psSeccompBaseline   = psSeccomp(false)
	psSeccompRestricted = psSeccomp(true)
)

func psSysctlSet(base psSet, more ...string) psSet {
	out := psSet{}
	for k := range base {
		out[k] = true
	}
	for _, k := range more {
		out[k] = true
	}
	return out
}

var (
	psSysctls10 = psSysctlSet(nil, "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
		"net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start")
	psSysctls127 = psSysctlSet(psSysctls10, "net.ipv4.ip_local_reserved_ports")
	psSysctls129 = psSysctlSet(psSysctls127, "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
		"net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes")
	psSysctls132 = psSysctlSet(psSysctls129, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")
	psSysctls137 = psSysctlSet(psSysctls132, "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat")
)

func psSysctls(allowed psSet) psCheckFn {
	return func(_, spec map[string]any) psResult {
		var bad []string
		l, _ := psMap(spec, "securityContext")["sysctls"].([]any)
		for _, s := range l {
			m, _ := s.(map[string]any)
			if n := psString(m, "name"); !allowed[n] {
				bad = append(bad, n)
			}
		}
		if len(bad) == 0 {
			return psResult{}
		}
		return psResult{"forbidden sysctls", strings.Join(bad, ", ")}
	}
}

func psWindowsHostProcess(_, spec map[string]any) psResult {
	var setters, bad []string
	for _, c := range psContainers(spec) {
		if psMap(c, "securityContext", "windowsOptions")["hostProcess"] == true {
			bad = append(bad, psName(c))
		}
	}
	if psMap(spec, "securityContext", "windowsOptions")["hostProcess"] == true {
		setters = append(setters, "pod")
	}
	if len(bad) > 0 {
		setters = append(setters, fmt.Sprintf("%s %s", psPlural("container", "containers", len(bad)), psQuote(bad)))
	}
	if len(setters) == 0 {
		return psResult{}
	}
	return psResult{"hostProcess", fmt.Sprintf("%s must not set securityContext.windowsOptions.hostProcess=true", strings.Join(setters, " and "))}
}

// psAllowedVolumeSources are the volume types restricted allows.
var psAllowedVolumeSources = []string{"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
	"persistentVolumeClaim", "projected", "secret"}

// psRestrictedVolumeSources are the others, in the order the policy names a volume's type
// (a volume with none of them is "unknown").
var psRestrictedVolumeSources = []string{"hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs",
	"iscsi", "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume",
	"quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos"}

func psRestrictedVolumes(_, spec map[string]any) psResult {
	var bad []string
	types := psSet{}
volumes:
	for _, v := range psVolumes(spec) {
		for _, k := range psAllowedVolumeSources {
			if psMap(v, k) != nil {
				continue volumes
			}
		}
		bad = append(bad, psName(v))
		t := "unknown"
		for _, k := range psRestrictedVolumeSources {
			if psMap(v, k) != nil {
				t = k
				break
			}
		}
		types[t] = true
	}
	if len(bad) == 0 {
		return psResult{}
	}
	return psResult{"restricted volume types", fmt.Sprintf("%s %s %s %s %s", psPlural("volume", "volumes", len(bad)), psQuote(bad),
		psPlural("uses", "use", len(bad)), psPlural("restricted volume type", "restricted volume types", len(types)), psQuote(types.list()))}
}

func psRunAsNonRoot(_, spec map[string]any) psResult {
	var setters []string
	podNonRoot := false
	if v, ok := psMap(spec, "securityContext")["runAsNonRoot"].(bool); ok {
		if !v {
			setters = append(setters, "pod")
		} else {
			podNonRoot = true
		}
	}
	var bad, implicit []string
	for _, c := range psContainers(spec) {
		if v, ok := psMap(c, "securityContext")["runAsNonRoot"].(bool); ok {
			if !v {
				bad = append(bad, psName(c))
			}
		} else if !podNonRoot {
			implicit = append(implicit, psName(c))
		}
	}
	if len(bad) > 0 {
		setters = append(setters, fmt.Sprintf("%s %s", psPlural("container", "containers", len(bad)), psQuote(bad)))
	}
	if len(setters) > 0 {
		return psResult{"runAsNonRoot != true", fmt.Sprintf("%s must not set securityContext.runAsNonRoot=false", strings.Join(setters, " and "))}
	}
	if len(implicit) > 0 {
		return psResult{"runAsNonRoot != true", fmt.Sprintf("pod or %s %s must set securityContext.runAsNonRoot=true",
			psPlural("container", "containers", len(implicit)), psQuote(implicit))}
	}
	return psResult{}
}

func psRunAsUser(_, spec map[string]any) psResult {
	var setters []string
	if u, ok := psInt(psMap(spec, "securityContext"), "runAsUser"); ok && u == 0 {
		setters = append(setters, "pod")
	}
	var bad []string
	for _, c := range psContainers(spec) {
		if u, ok := psInt(psMap(c, "securityContext"), "runAsUser"); ok && u == 0 {
			bad = append(bad, psName(c))
		}
	}
	if len(bad) > 0 {
		setters = append(setters, fmt.Sprintf("%s %s", psPlural("container", "containers", len(bad)), psQuote(bad)))
	}
	if len(setters) == 0 {
		return psResult{}
	}
	return psResult{"runAsUser=0", fmt.Sprintf("%s must not set runAsUser=0", strings.Join(setters, " and "))}
}
