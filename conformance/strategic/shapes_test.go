package strategic

import (
	"fmt"
	"math/rand"
	"sort"
)

// shape describes the JSON shape of a kind closely enough to generate
// documents and patches that exercise strategic merge patch: merge lists with
// their merge keys, primitive merge lists, atomic lists, maps with free keys,
// retainKeys structs.
type shape struct {
	kind     string // "obj", "list", "plist" (primitive list), "free" (map of strings), "scalar"
	fields   map[string]*shape
	elem     *shape
	mergeKey string
	values   []any // scalar choices
}

func obj(fields map[string]*shape) *shape { return &shape{kind: "obj", fields: fields} }
func list(mergeKey string, elem *shape) *shape {
	return &shape{kind: "list", mergeKey: mergeKey, elem: elem}
}
func plist(values ...any) *shape  { return &shape{kind: "plist", values: values} }
func scalar(values ...any) *shape { return &shape{kind: "scalar", values: values} }
func free() *shape                { return &shape{kind: "free"} }

var (
	names    = scalar("a", "b", "c", "d")
	envShape = list("name", obj(map[string]*shape{
		"name":  names,
		"value": scalar("1", "2", "x"),
		"valueFrom": obj(map[string]*shape{
			"fieldRef": obj(map[string]*shape{"fieldPath": scalar("metadata.name", "spec.nodeName")}),
		}),
	}))
	portShape = list("containerPort", obj(map[string]*shape{
		"containerPort": scalar(int64(80), int64(443), int64(8080)),
		"protocol":      scalar("TCP", "UDP"),
		"name":          scalar("http", "https", "metrics"),
	}))
	container = obj(map[string]*shape{
		"name":            names,
		"image":           scalar("nginx:1", "nginx:2", "busybox"),
		"args":            plist("--a", "--b", "-v"),
		"command":         plist("sh", "-c"),
		"env":             envShape,
		"ports":           portShape,
		"imagePullPolicy": scalar("Always", "IfNotPresent"),
		"volumeMounts": list("mountPath", obj(map[string]*shape{
			"name":      names,
			"mountPath": scalar("/a", "/b", "/c"),
			"readOnly":  scalar(true, false),
		})),
		"resources": obj(map[string]*shape{"limits": free(), "requests": free()}),
	})
	podSpec = obj(map[string]*shape{
		"containers":     list("name", container),
		"initContainers": list("name", container),
		"volumes": list("name", obj(map[string]*shape{
			"name":      names,
			"emptyDir":  obj(map[string]*shape{"medium": scalar("", "Memory")}),
			"configMap": obj(map[string]*shape{"name": names}),
			"secret":    obj(map[string]*shape{"secretName": names}),
		})),
		"tolerations": list("", obj(map[string]*shape{
			"key":      names,
			"operator": scalar("Exists", "Equal"),
			"effect":   scalar("NoSchedule"),
		})),
		"imagePullSecrets":   list("name", obj(map[string]*shape{"name": names})),
		"nodeSelector":       free(),
		"serviceAccountName": scalar("default", "builder"),
		"restartPolicy":      scalar("Always", "Never"),
		"hostAliases": list("ip", obj(map[string]*shape{
			"ip":        scalar("10.0.0.1", "10.0.0.2"),
			"hostnames": plist("x", "y"),
		})),
	})
	metadata = obj(map[string]*shape{
		"name":        names,
		"namespace":   scalar("default"),
		"labels":      free(),
		"annotations": free(),
		"finalizers":  plist("f/a", "f/b", "f/c"),
		"ownerReferences": list("uid", obj(map[string]*shape{
			"apiVersion": scalar("v1"),
			"kind":       scalar("Pod"),
			"name":       names,
			"uid":        scalar("u1", "u2", "u3"),
		})),
	})
	podShape = obj(map[string]*shape{
		"apiVersion": scalar("v1"),
		"kind":       scalar("Pod"),
		"metadata":   metadata,
		"spec":       podSpec,
	})
	deploymentShape = obj(map[string]*shape{
		"apiVersion": scalar("apps/v1"),
		"kind":       scalar("Deployment"),
		"metadata":   metadata,
		"spec": obj(map[string]*shape{
			"replicas": scalar(int64(1), int64(3), int64(12)),
			"paused":   scalar(true, false),
			"selector": obj(map[string]*shape{"matchLabels": free()}),
			"strategy": obj(map[string]*shape{
				"type":          scalar("RollingUpdate", "Recreate"),
				"rollingUpdate": obj(map[string]*shape{"maxSurge": scalar(int64(1), "25%"), "maxUnavailable": scalar(int64(0), "25%")}),
			}),
			"template": obj(map[string]*shape{"metadata": metadata, "spec": podSpec}),
		}),
	})
	serviceShape = obj(map[string]*shape{
		"apiVersion": scalar("v1"),
		"kind":       scalar("Service"),
		"metadata":   metadata,
		"spec": obj(map[string]*shape{
			"type":        scalar("ClusterIP", "NodePort"),
			"selector":    free(),
			"externalIPs": plist("1.1.1.1", "2.2.2.2"),
			"ports": list("port", obj(map[string]*shape{
				"port":       scalar(int64(80), int64(443), int64(53)),
				"protocol":   scalar("TCP", "UDP"),
				"name":       scalar("http", "https", "dns"),
				"targetPort": scalar(int64(8080), "http"),
			})),
		}),
	})
)

type gen struct{ rng *rand.Rand }

func (g gen) pick(vs []any) any { return vs[g.rng.Intn(len(vs))] }

func sortedFieldNames(s *shape) []string {
	out := make([]string, 0, len(s.fields))
	for k := range s.fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// doc generates a document of the shape; lists may hold duplicate merge keys
// (the env-var and same-port/different-protocol cases).
func (g gen) doc(s *shape, depth int) any {
	switch s.kind {
	case "obj":
		m := map[string]any{}
		for _, f := range sortedFieldNames(s) {
			if depth > 0 && g.rng.Intn(3) == 0 || depth > 4 && g.rng.Intn(2) == 0 {
				continue
			}
			m[f] = g.doc(s.fields[f], depth+1)
		}
		if g.rng.Intn(40) == 0 {
			m["unknownField"] = "x"
		}
		return m
	case "list":
		out := []any{}
		for i := g.rng.Intn(4); i > 0; i-- {
			e := g.doc(s.elem, depth+1)
			if m, ok := e.(map[string]any); ok && s.mergeKey != "" && g.rng.Intn(25) != 0 {
				m[s.mergeKey] = g.pick(s.elem.fields[s.mergeKey].values)
			}
			out = append(out, e)
		}
		return out
	case "plist":
		out := []any{}
		for i := g.rng.Intn(4); i > 0; i-- {
			out = append(out, g.pick(s.values))
		}
		return out
	case "free":
		m := map[string]any{}
		for i := g.rng.Intn(3); i > 0; i-- {
			m[fmt.Sprintf("k%d", g.rng.Intn(4))] = fmt.Sprintf("v%d", g.rng.Intn(3))
		}
		return m
	}
	if g.rng.Intn(60) == 0 {
		return nil
	}
	return g.pick(s.values)
}

// patch generates a strategic merge patch for a value of shape s (cur is the
// current value, possibly nil), with directives sprinkled in.
func (g gen) patch(s *shape, cur any, depth int) any {
	switch s.kind {
	case "obj":
		m := map[string]any{}
		curM, _ := cur.(map[string]any)
		for _, f := range sortedFieldNames(s) {
			if g.rng.Intn(4) != 0 {
				continue
			}
			switch g.rng.Intn(8) {
			case 0:
				m[f] = nil
			default:
				m[f] = g.patch(s.fields[f], curM[f], depth+1)
			}
		}
		switch g.rng.Intn(40) {
		case 0:
			m["$patch"] = "replace"
		case 1:
			m["$patch"] = "delete"
		case 2:
			m["$patch"] = []string{"merge", "bogus"}[g.rng.Intn(2)]
		case 3:
			keys := []any{}
			for _, f := range sortedFieldNames(s) {
				if g.rng.Intn(2) == 0 {
					keys = append(keys, f)
				}
			}
			m["$retainKeys"] = keys
		case 4:
			m["$retainKeys"] = "notalist"
		case 5:
			m["$unknownDirective"] = int64(1)
		}
		return m
	case "list":
		curL, _ := cur.([]any)
		out := []any{}
		for i := g.rng.Intn(3) + 1; i > 0; i-- {
			var elemCur any
			if len(curL) > 0 && g.rng.Intn(2) == 0 {
				elemCur = curL[g.rng.Intn(len(curL))]
			}
			e, _ := g.patch(s.elem, elemCur, depth+1).(map[string]any)
			if e == nil {
				e = map[string]any{}
			}
			if s.mergeKey != "" {
				if em, ok := elemCur.(map[string]any); ok && g.rng.Intn(5) != 0 {
					if mk, ok := em[s.mergeKey]; ok {
						e[s.mergeKey] = mk
					}
				} else if g.rng.Intn(8) != 0 {
					e[s.mergeKey] = g.doc(s.elem.fields[s.mergeKey], 9)
				}
				switch g.rng.Intn(12) {
				case 0:
					e = map[string]any{s.mergeKey: e[s.mergeKey], "$patch": "delete"}
				case 1:
					e = map[string]any{"$patch": "replace"}
				case 2:
					e["$patch"] = "merge"
				}
			}
			out = append(out, e)
		}
		if g.rng.Intn(30) == 0 {
			out = append(out, "notamap")
		}
		if g.rng.Intn(40) == 0 {
			return []any{}
		}
		return out
	case "plist":
		out := []any{}
		for i := g.rng.Intn(3); i > 0; i-- {
			out = append(out, g.pick(s.values))
		}
		return out
	case "free":
		m := map[string]any{}
		for i := g.rng.Intn(3); i > 0; i-- {
			if g.rng.Intn(3) == 0 {
				m[fmt.Sprintf("k%d", g.rng.Intn(4))] = nil
			} else {
				m[fmt.Sprintf("k%d", g.rng.Intn(4))] = fmt.Sprintf("v%d", g.rng.Intn(3))
			}
		}
		return m
	}
	return g.pick(s.values)
}

// parallel adds $setElementOrder and $deleteFromPrimitiveList directives to
// a patch object of shape s, next to lists.
func (g gen) parallel(s *shape, p map[string]any, cur map[string]any) {
	if s.kind != "obj" || p == nil {
		return
	}
	for _, f := range sortedFieldNames(s) {
		fs := s.fields[f]
		switch fs.kind {
		case "obj":
			sub, _ := p[f].(map[string]any)
			c, _ := cur[f].(map[string]any)
			g.parallel(fs, sub, c)
		case "list":
			if g.rng.Intn(6) == 0 && fs.mergeKey != "" {
				order := []any{}
				seen := map[any]bool{}
				for _, src := range []any{p[f], cur[f]} {
					l, _ := src.([]any)
					for _, e := range l {
						if em, ok := e.(map[string]any); ok {
							if mk, ok := em[fs.mergeKey]; ok && !seen[mk] && em["$patch"] == nil {
								seen[mk] = true
								order = append(order, map[string]any{fs.mergeKey: mk})
							}
						}
					}
				}
				g.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				if g.rng.Intn(8) == 0 && len(order) > 0 {
					order = order[1:]
				}
				p["$setElementOrder/"+f] = order
			}
			if l, ok := p[f].([]any); ok {
				for i, e := range l {
					em, ok := e.(map[string]any)
					c := findByKey(cur[f], fs.mergeKey, em)
					if ok {
						g.parallel(fs.elem, em, c)
						l[i] = em
					}
				}
			}
		case "plist":
			if g.rng.Intn(5) == 0 {
				del := []any{}
				for i := g.rng.Intn(3); i > 0; i-- {
					del = append(del, g.pick(fs.values))
				}
				p["$deleteFromPrimitiveList/"+f] = del
			}
			if g.rng.Intn(6) == 0 {
				order := []any{}
				for i := g.rng.Intn(4); i > 0; i-- {
					order = append(order, g.pick(fs.values))
				}
				p["$setElementOrder/"+f] = order
			}
		}
	}
	if g.rng.Intn(60) == 0 {
		p["$setElementOrder/bogus"] = []any{}
	}
	if g.rng.Intn(60) == 0 {
		p["$deleteFromPrimitiveListX"] = []any{}
	}
}

func findByKey(list any, mergeKey string, want map[string]any) map[string]any {
	l, _ := list.([]any)
	if mergeKey == "" || want == nil {
		return nil
	}
	for _, e := range l {
		if em, ok := e.(map[string]any); ok && em[mergeKey] == want[mergeKey] {
			return em
		}
	}
	return nil
}

// mutate returns a modified copy of a document of shape s: fields changed,
// removed or added, list elements removed, added, changed or reordered.
func (g gen) mutate(s *shape, v any, depth int) any {
	switch s.kind {
	case "obj":
		m, ok := v.(map[string]any)
		if !ok {
			return g.doc(s, depth)
		}
		out := map[string]any{}
		for _, k := range sortedKeys(m) {
			e := m[k]
			fs := s.fields[k]
			switch {
			case g.rng.Intn(8) == 0:
				// removed
			case fs == nil || g.rng.Intn(2) == 0:
				out[k] = e
			default:
				out[k] = g.mutate(fs, e, depth+1)
			}
		}
		if g.rng.Intn(3) == 0 {
			f := sortedFieldNames(s)[g.rng.Intn(len(s.fields))]
			out[f] = g.doc(s.fields[f], depth+1)
		}
		return out
	case "list", "plist":
		l, ok := v.([]any)
		if !ok {
			return g.doc(s, depth)
		}
		out := []any{}
		for _, e := range l {
			switch {
			case g.rng.Intn(6) == 0:
			case s.kind == "list" && g.rng.Intn(3) == 0:
				out = append(out, g.mutate(s.elem, e, depth+1))
			default:
				out = append(out, e)
			}
		}
		if g.rng.Intn(3) == 0 {
			if s.kind == "list" {
				out = append(out, g.doc(s.elem, depth+1))
			} else {
				out = append(out, g.pick(s.values))
			}
		}
		if g.rng.Intn(5) == 0 {
			g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		}
		return out
	case "free":
		m, _ := v.(map[string]any)
		out := map[string]any{}
		for _, k := range sortedKeys(m) {
			e := m[k]
			if g.rng.Intn(4) != 0 {
				out[k] = e
			}
		}
		if g.rng.Intn(2) == 0 {
			out[fmt.Sprintf("k%d", g.rng.Intn(4))] = fmt.Sprintf("v%d", g.rng.Intn(3))
		}
		return out
	}
	if g.rng.Intn(3) == 0 {
		return g.pick(s.values)
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
