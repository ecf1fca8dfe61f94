package validation

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ephemeralDiff is the text the apiserver appends to "existing ephemeral containers %q may not be
// changed": apimachinery's diff.Diff of the two internal core.EphemeralContainer values, a
// unified diff (3 lines of context, no file header) of their json.MarshalIndent(v, "", " ")
// renderings. The internal type has no JSON tags, so the keys are the Go field names, in the
// struct's order, and every field is present (null for nil pointers, slices and maps).
func ephemeralDiff(old, new map[string]any) string {
	a := renderGoJSON(old, "EphemeralContainer")
	b := renderGoJSON(new, "EphemeralContainer")
	return unifiedDiff(splitLines(a), splitLines(b), 3)
}

// diffField is one field of an internal Go type: its Go name, its JSON name in the v1 type and
// its type: "string", "bool", "int", "intOrString", "quantity", "[]string", "[]int", "resources" (a
// ResourceList), "*T" (a pointer to T), "[]T" (a slice of T), "T" (a struct T), or "^T" (T
// embedded: its fields inline).
type diffField struct{ goName, jsonName, typ string }

// diffTypes are the internal core types an ephemeral container holds (k8s.io/kubernetes
// pkg/apis/core/types.go, v1.37.2), field by field in declaration order.
var diffTypes = map[string][]diffField{
	"EphemeralContainer": {
		{"Name", "name", "string"}, {"Image", "image", "string"}, {"Command", "command", "[]string"},
		{"Args", "args", "[]string"}, {"WorkingDir", "workingDir", "string"}, {"Ports", "ports", "[]ContainerPort"},
		{"EnvFrom", "envFrom", "[]EnvFromSource"}, {"Env", "env", "[]EnvVar"},
		{"Resources", "resources", "ResourceRequirements"}, {"ResizePolicy", "resizePolicy", "[]ContainerResizePolicy"},
		{"RestartPolicy", "restartPolicy", "*string"}, {"RestartPolicyRules", "restartPolicyRules", "[]ContainerRestartRule"},
		{"VolumeMounts", "volumeMounts", "[]VolumeMount"}, {"VolumeDevices", "volumeDevices", "[]VolumeDevice"},
		{"LivenessProbe", "livenessProbe", "*Probe"}, {"ReadinessProbe", "readinessProbe", "*Probe"},
		{"StartupProbe", "startupProbe", "*Probe"}, {"Lifecycle", "lifecycle", "*Lifecycle"},
		{"TerminationMessagePath", "terminationMessagePath", "string"},
		{"TerminationMessagePolicy", "terminationMessagePolicy", "string"},
		{"ImagePullPolicy", "imagePullPolicy", "string"}, {"SecurityContext", "securityContext", "*SecurityContext"},
		{"Stdin", "stdin", "bool"}, {"StdinOnce", "stdinOnce", "bool"}, {"TTY", "tty", "bool"},
		{"TargetContainerName", "targetContainerName", "string"},
	},
	"ContainerPort": {{"Name", "name", "string"}, {"HostPort", "hostPort", "int"}, {"ContainerPort", "containerPort", "int"},
		{"Protocol", "protocol", "string"}, {"HostIP", "hostIP", "string"}},
	"EnvFromSource": {{"Prefix", "prefix", "string"}, {"ConfigMapRef", "configMapRef", "*ConfigMapEnvSource"},
		{"SecretRef", "secretRef", "*SecretEnvSource"}},
	"ConfigMapEnvSource":   {{"", "", "^LocalObjectReference"}, {"Optional", "optional", "*bool"}},
	"SecretEnvSource":      {{"", "", "^LocalObjectReference"}, {"Optional", "optional", "*bool"}},
	"LocalObjectReference": {{"Name", "name", "string"}},
	"EnvVar":               {{"Name", "name", "string"}, {"Value", "value", "string"}, {"ValueFrom", "valueFrom", "*EnvVarSource"}},
	"EnvVarSource": {{"FieldRef", "fieldRef", "*ObjectFieldSelector"}, {"ResourceFieldRef", "resourceFieldRef", "*ResourceFieldSelector"},
		{"ConfigMapKeyRef", "configMapKeyRef", "*ConfigMapKeySelector"}, {"SecretKeyRef", "secretKeyRef", "*SecretKeySelector"},
		{"FileKeyRef", "fileKeyRef", "*FileKeySelector"}},
	"ObjectFieldSelector":   {{"APIVersion", "apiVersion", "string"}, {"FieldPath", "fieldPath", "string"}},
	"ResourceFieldSelector": {{"ContainerName", "containerName", "string"}, {"Resource", "resource", "string"}, {"Divisor", "divisor", "quantity"}},
	"ConfigMapKeySelector":  {{"", "", "^LocalObjectReference"}, {"Key", "key", "string"}, {"Optional", "optional", "*bool"}},
	"SecretKeySelector":     {{"", "", "^LocalObjectReference"}, {"Key", "key", "string"}, {"Optional", "optional", "*bool"}},
	"FileKeySelector": {{"VolumeName", "volumeName", "string"}, {"Path", "path", "string"}, {"Key", "key", "string"},
		{"Optional", "optional", "*bool"}},
	"ResourceRequirements":            {{"Limits", "limits", "resources"}, {"Requests", "requests", "resources"}, {"Claims", "claims", "[]ResourceClaim"}},
	"ResourceClaim":                   {{"Name", "name", "string"}, {"Request", "request", "string"}},
	"ContainerResizePolicy":           {{"ResourceName", "resourceName", "string"}, {"RestartPolicy", "restartPolicy", "string"}},
	"ContainerRestartRule":            {{"Action", "action", "string"}, {"ExitCodes", "exitCodes", "*ContainerRestartRuleOnExitCodes"}},
	"ContainerRestartRuleOnExitCodes": {{"Operator", "operator", "string"}, {"Values", "values", "[]int"}},
	"VolumeMount": {{"Name", "name", "string"}, {"ReadOnly", "readOnly", "bool"}, {"RecursiveReadOnly", "recursiveReadOnly", "*string"},
		{"MountPath", "mountPath", "string"}, {"SubPath", "subPath", "string"}, {"MountPropagation", "mountPropagation", "*string"},
		{"SubPathExpr", "subPathExpr", "string"}, {"BindMountOptions", "bindMountOptions", "[]string"}},
	"VolumeDevice": {{"Name", "name", "string"}, {"DevicePath", "devicePath", "string"}},
	"SecurityContext": {{"Capabilities", "capabilities", "*Capabilities"}, {"Privileged", "privileged", "*bool"},
		{"SELinuxOptions", "seLinuxOptions", "*SELinuxOptions"}, {"WindowsOptions", "windowsOptions", "*WindowsSecurityContextOptions"},
		{"RunAsUser", "runAsUser", "*int"}, {"RunAsGroup", "runAsGroup", "*int"}, {"RunAsNonRoot", "runAsNonRoot", "*bool"},
		{"ReadOnlyRootFilesystem", "readOnlyRootFilesystem", "*bool"}, {"AllowPrivilegeEscalation", "allowPrivilegeEscalation", "*bool"},
		{"ProcMount", "procMount", "*string"}, {"SeccompProfile", "seccompProfile", "*SeccompProfile"},
		{"AppArmorProfile", "appArmorProfile", "*AppArmorProfile"}},
	"Capabilities":   {{"Add", "add", "[]string"}, {"Drop", "drop", "[]string"}},
	"SELinuxOptions": {{"User", "user", "string"}, {"Role", "role", "string"}, {"Type", "type", "string"}, {"Level", "level", "string"}},
	"WindowsSecurityContextOptions": {{"GMSACredentialSpecName", "gmsaCredentialSpecName", "*string"},
		{"GMSACredentialSpec", "gmsaCredentialSpec", "*string"}, {"RunAsUserName", "runAsUserName", "*string"}, {"HostProcess", "hostProcess", "*bool"}},
	"Probe": {{"", "", "^ProbeHandler"}, {"InitialDelaySeconds", "initialDelaySeconds", "int"}, {"TimeoutSeconds", "timeoutSeconds", "int"},
		{"PeriodSeconds", "periodSeconds", "int"}, {"SuccessThreshold", "successThreshold", "int"}, {"FailureThreshold", "failureThreshold", "int"},
		{"TerminationGracePeriodSeconds", "terminationGracePeriodSeconds", "*int"}},
	"ProbeHandler": {{"Exec", "exec", "*ExecAction"}, {"HTTPGet", "httpGet", "*HTTPGetAction"}, {"TCPSocket", "tcpSocket", "*TCPSocketAction"},
		{"GRPC", "grpc", "*GRPCAction"}},
	"ExecAction": {{"Command", "command", "[]string"}},
	"HTTPGetAction": {{"Path", "path", "string"}, {"Port", "port", "intOrString"}, {"Host", "host", "string"}, {"Scheme", "scheme", "string"},
		{"HTTPHeaders", "httpHeaders", "[]HTTPHeader"}, {"Protocol", "protocol", "*string"}},
	"HTTPHeader":      {{"Name", "name", "string"}, {"Value", "value", "string"}},
	"TCPSocketAction": {{"Port", "port", "intOrString"}, {"Host", "host", "string"}},
	"GRPCAction":      {{"Port", "port", "int"}, {"Service", "service", "*string"}, {"Mode", "mode", "*string"}},
	"Lifecycle": {{"PostStart", "postStart", "*LifecycleHandler"}, {"PreStop", "preStop", "*LifecycleHandler"},
		{"StopSignal", "stopSignal", "*string"}},
	"LifecycleHandler": {{"Exec", "exec", "*ExecAction"}, {"HTTPGet", "httpGet", "*HTTPGetAction"}, {"TCPSocket", "tcpSocket", "*TCPSocketAction"},
		{"Sleep", "sleep", "*SleepAction"}},
	// PersistentVolumeClaimSpec, for the claim's "spec is immutable" diff (its selector is
	// metav1's LabelSelector, written with its JSON tags: see labelSelectorGo).
	"PersistentVolumeClaimSpec": {{"AccessModes", "accessModes", "[]string"}, {"Selector", "selector", "*labelSelectorGo"},
		{"Resources", "resources", "VolumeResourceRequirements"}, {"VolumeName", "volumeName", "string"},
		{"StorageClassName", "storageClassName", "*string"}, {"VolumeMode", "volumeMode", "*string"},
		{"DataSource", "dataSource", "*TypedLocalObjectReference"}, {"DataSourceRef", "dataSourceRef", "*TypedObjectReference"},
		{"VolumeAttributesClassName", "volumeAttributesClassName", "*string"}},
	"VolumeResourceRequirements": {{"Limits", "limits", "resources"}, {"Requests", "requests", "resources"}},
	"TypedLocalObjectReference":  {{"APIGroup", "apiGroup", "*string"}, {"Kind", "kind", "string"}, {"Name", "name", "string"}},
	"TypedObjectReference": {{"APIGroup", "apiGroup", "*string"}, {"Kind", "kind", "string"}, {"Name", "name", "string"},
		{"Namespace", "namespace", "*string"}},
	"SleepAction":     {{"Seconds", "seconds", "int"}},
	"SeccompProfile":  {{"Type", "type", "string"}, {"LocalhostProfile", "localhostProfile", "*string"}},
	"AppArmorProfile": {{"Type", "type", "string"}, {"LocalhostProfile", "localhostProfile", "*string"}},
}

// renderGoJSON renders v as json.MarshalIndent(v, "", " ") renders the Go value of type typ
// decoded from it. A type missing from the table (none in 1.37) would be rendered from the
// object model with capitalised keys in sorted order, an approximation of its Go rendering.
func renderGoJSON(v any, typ string) string {
	var b strings.Builder
	writeGo(&b, v, typ, "")
	return b.String()
}

func writeGo(b *strings.Builder, v any, typ, indent string) {
	switch {
	case typ == "string":
		s, _ := v.(string)
		writeJSONScalar(b, s)
	case typ == "bool":
		t, _ := v.(bool)
		fmt.Fprint(b, t)
	case typ == "int":
		writeNumber(b, v)
	case typ == "intOrString":
		// intstr.IntOrString marshals as its string or its integer (0 when absent).
		if str, ok := v.(string); ok {
			writeJSONScalar(b, str)
		} else {
			writeNumber(b, v)
		}
	case typ == "quantity":
		s, _ := v.(string)
		if s == "" {
			s = "0"
		}
		writeJSONScalar(b, s)
	case typ == "resources":
		m, ok := v.(map[string]any)
		if !ok {
			b.WriteString("null")
			return
		}
		keys := sortedKeys(m)
		writeObject(b, indent, len(keys), func(i int) (string, func(string)) {
			return keys[i], func(in string) { writeGo(b, m[keys[i]], "quantity", in) }
		})
	case typ == "labelSelectorGo":
		// metav1.LabelSelector has JSON tags (omitempty), unlike the internal core types.
		sel := selectorValue(mapOf(v), true)
		out, err := json.MarshalIndent(sel, indent, " ")
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(out)
	case strings.HasPrefix(typ, "*"):
		if v == nil {
			b.WriteString("null")
			return
		}
		writeGo(b, v, typ[1:], indent)
	case strings.HasPrefix(typ, "[]"):
		l, ok := v.([]any)
		if !ok {
			b.WriteString("null")
			return
		}
		if len(l) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range l {
			b.WriteString(indent + " ")
			writeGo(b, x, typ[2:], indent+" ")
			if i < len(l)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		fields, ok := diffTypes[typ]
		m, _ := v.(map[string]any)
		if !ok {
			writeApprox(b, v, indent)
			return
		}
		flat := flattenFields(fields)
		writeObject(b, indent, len(flat), func(i int) (string, func(string)) {
			f := flat[i]
			return f.goName, func(in string) { writeGo(b, m[f.jsonName], f.typ, in) }
		})
	}
}

// flattenFields inlines embedded structs.
func flattenFields(fields []diffField) []diffField {
	var out []diffField
	for _, f := range fields {
		if strings.HasPrefix(f.typ, "^") {
			out = append(out, flattenFields(diffTypes[f.typ[1:]])...)
			continue
		}
		out = append(out, f)
	}
	return out
}

// writeObject writes an object of n members; member(i) gives the key and the value writer.
func writeObject(b *strings.Builder, indent string, n int, member func(int) (string, func(string))) {
	if n == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i := 0; i < n; i++ {
		k, w := member(i)
		b.WriteString(indent + " ")
		writeJSONScalar(b, k)
		b.WriteString(": ")
		w(indent + " ")
		if i < n-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}

func writeJSONScalar(b *strings.Builder, s string) {
	raw, _ := json.Marshal(s) // escapes as encoding/json does (HTML characters included)
	b.Write(raw)
}

func writeNumber(b *strings.Builder, v any) {
	switch n := v.(type) {
	case int64:
		fmt.Fprint(b, n)
	case float64:
		fmt.Fprint(b, int64(n))
	default:
		b.WriteByte('0')
	}
}

// writeApprox renders an object-model value with capitalised keys in sorted order.
func writeApprox(b *strings.Builder, v any, indent string) {
	switch x := v.(type) {
	case map[string]any:
		keys := sortedKeys(x)
		writeObject(b, indent, len(keys), func(i int) (string, func(string)) {
			k := keys[i]
			r, size := utf8.DecodeRuneInString(k)
			return string(unicode.ToUpper(r)) + k[size:], func(in string) { writeApprox(b, x[k], in) }
		})
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(indent + " ")
			writeApprox(b, e, indent+" ")
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case nil:
		b.WriteString("null")
	case string:
		writeJSONScalar(b, x)
	default:
		raw, _ := json.Marshal(x)
		b.Write(raw)
	}
}

// splitLines is difflib.SplitLines: lines keep their "\n", and the last one gets one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	lines[len(lines)-1] += "\n"
	return lines
}

// unifiedDiff is go-difflib's WriteUnifiedDiff without file names (no header): the hunks of
// Python difflib's SequenceMatcher (autojunk on, no junk function) with n lines of context.
func unifiedDiff(a, b []string, n int) string {
	var out strings.Builder
	for _, g := range groupedOpCodes(a, b, n) {
		first, last := g[0], g[len(g)-1]
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", unifiedRange(first.i1, last.i2), unifiedRange(first.j1, last.j2))
		for _, c := range g {
			if c.tag == 'e' {
				for _, l := range a[c.i1:c.i2] {
					out.WriteString(" " + l)
				}
				continue
			}
			if c.tag == 'r' || c.tag == 'd' {
				for _, l := range a[c.i1:c.i2] {
					out.WriteString("-" + l)
				}
			}
			if c.tag == 'r' || c.tag == 'i' {
				for _, l := range b[c.j1:c.j2] {
					out.WriteString("+" + l)
				}
			}
		}
	}
	return out.String()
}

func unifiedRange(start, stop int) string {
	beginning, length := start+1, stop-start
	if length == 1 {
		return fmt.Sprint(beginning)
	}
	if length == 0 {
		beginning--
	}
	return fmt.Sprintf("%d,%d", beginning, length)
}

type opCode struct {
	tag            byte
	i1, i2, j1, j2 int
}

type match struct{ a, b, size int }

// matcher is difflib's SequenceMatcher over lines.
type matcher struct {
	a, b []string
	b2j  map[string][]int
}

func newMatcher(a, b []string) *matcher {
	m := &matcher{a: a, b: b, b2j: map[string][]int{}}
	for i, s := range b {
		m.b2j[s] = append(m.b2j[s], i)
	}
	if n := len(b); n >= 200 {
		ntest := n/100 + 1
		for s, idx := range m.b2j {
			if len(idx) > ntest {
				delete(m.b2j, s)
			}
		}
	}
	return m
}

func (m *matcher) longestMatch(alo, ahi, blo, bhi int) match {
	besti, bestj, bestsize := alo, blo, 0
	j2len := map[int]int{}
	for i := alo; i != ahi; i++ {
		next := map[int]int{}
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			next[j] = k
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		j2len = next
	}
	// No junk: extend over equal (popular) lines on both sides.
	for besti > alo && bestj > blo && m.a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.a[besti+bestsize] == m.b[bestj+bestsize] {
		bestsize++
	}
	return match{besti, bestj, bestsize}
}

func (m *matcher) matchingBlocks() []match {
	la, lb := len(m.a), len(m.b)
	queue := [][4]int{{0, la, 0, lb}}
	var matched []match
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		alo, ahi, blo, bhi := q[0], q[1], q[2], q[3]
		x := m.longestMatch(alo, ahi, blo, bhi)
		i, j, k := x.a, x.b, x.size
		if k > 0 {
			matched = append(matched, x)
			if alo < i && blo < j {
				queue = append(queue, [4]int{alo, i, blo, j})
			}
			if i+k < ahi && j+k < bhi {
				queue = append(queue, [4]int{i + k, ahi, j + k, bhi})
			}
		}
	}
	sort.Slice(matched, func(x, y int) bool {
		if matched[x].a != matched[y].a {
			return matched[x].a < matched[y].a
		}
		if matched[x].b != matched[y].b {
			return matched[x].b < matched[y].b
		}
		return matched[x].size < matched[y].size
	})
	var out []match
	i1, j1, k1 := 0, 0, 0
	for _, x := range matched {
		if i1+k1 == x.a && j1+k1 == x.b {
			k1 += x.size
			continue
		}
		if k1 > 0 {
			out = append(out, match{i1, j1, k1})
		}
		i1, j1, k1 = x.a, x.b, x.size
	}
	if k1 > 0 {
		out = append(out, match{i1, j1, k1})
	}
	return append(out, match{la, lb, 0})
}

func (m *matcher) opCodes() []opCode {
	var codes []opCode
	i, j := 0, 0
	for _, x := range m.matchingBlocks() {
		var tag byte
		switch {
		case i < x.a && j < x.b:
			tag = 'r'
		case i < x.a:
			tag = 'd'
		case j < x.b:
			tag = 'i'
		}
		if tag != 0 {
			codes = append(codes, opCode{tag, i, x.a, j, x.b})
		}
		i, j = x.a+x.size, x.b+x.size
		if x.size > 0 {
			codes = append(codes, opCode{'e', x.a, i, x.b, j})
		}
	}
	return codes
}

func groupedOpCodes(a, b []string, n int) [][]opCode {
	codes := newMatcher(a, b).opCodes()
	if len(codes) == 0 {
		codes = []opCode{{'e', 0, 1, 0, 1}}
	}
	if c := codes[0]; c.tag == 'e' {
		codes[0] = opCode{c.tag, max(c.i1, c.i2-n), c.i2, max(c.j1, c.j2-n), c.j2}
	}
	if c := codes[len(codes)-1]; c.tag == 'e' {
		codes[len(codes)-1] = opCode{c.tag, c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)}
	}
	var groups [][]opCode
	var group []opCode
	for _, c := range codes {
		i1, i2, j1, j2 := c.i1, c.i2, c.j1, c.j2
		if c.tag == 'e' && i2-i1 > 2*n {
			group = append(group, opCode{c.tag, i1, min(i2, i1+n), j1, min(j2, j1+n)})
			groups = append(groups, group)
			group = nil
			i1, j1 = max(i1, i2-n), max(j1, j2-n)
		}
		group = append(group, opCode{c.tag, i1, i2, j1, j2})
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}
