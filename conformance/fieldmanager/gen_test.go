package fieldmanager

import (
	"encoding/json"
	"math/rand"
)

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

func randLabels(r *rand.Rand) map[string]any {
	m := map[string]any{}
	for _, k := range []string{"a", "b", "c"} {
		if r.Intn(2) == 0 {
			m[k] = pick(r, "1", "2")
		}
	}
	return m
}

func genContainer(r *rand.Rand, name string) map[string]any {
	c := map[string]any{"name": name}
	if r.Intn(4) != 0 {
		c["image"] = pick(r, "nginx:1", "nginx:2")
	}
	if r.Intn(3) == 0 {
		var ports []any
		for _, p := range []int64{80, 443} {
			if r.Intn(2) == 0 {
				port := map[string]any{"containerPort": p}
				if r.Intn(2) == 0 {
					port["protocol"] = pick(r, "TCP", "UDP")
				}
				if r.Intn(3) == 0 {
					port["name"] = pick(r, "http", "https")
				}
				ports = append(ports, port)
			}
		}
		if ports != nil {
			c["ports"] = ports
		}
	}
	if r.Intn(3) == 0 {
		var env []any
		for _, n := range []string{"A", "B"} {
			if r.Intn(2) == 0 {
				env = append(env, map[string]any{"name": n, "value": pick(r, "x", "y")})
			}
		}
		if env != nil {
			c["env"] = env
		}
	}
	if r.Intn(4) == 0 {
		c["args"] = []any{pick(r, "a", "b"), pick(r, "c", "d")}
	}
	return c
}

// genDeployment returns a random partial apps/v1 Deployment apply configuration.
func genDeployment(r *rand.Rand) map[string]any {
	md := map[string]any{"name": "web", "namespace": "default"}
	if r.Intn(2) == 0 {
		md["labels"] = randLabels(r)
	}
	if r.Intn(4) == 0 {
		md["annotations"] = map[string]any{"note": pick(r, "x", "y")}
	}
	if r.Intn(6) == 0 {
		md["finalizers"] = []any{pick(r, "example.com/a", "example.com/b")}
	}
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md}
	spec := map[string]any{}
	if r.Intn(2) == 0 {
		spec["replicas"] = int64(r.Intn(3) + 1)
	}
	if r.Intn(5) == 0 {
		spec["paused"] = r.Intn(2) == 0
	}
	if r.Intn(5) == 0 {
		spec["minReadySeconds"] = int64(r.Intn(3))
	}
	if r.Intn(4) == 0 {
		spec["selector"] = map[string]any{"matchLabels": map[string]any{"app": "web"}}
	}
	if r.Intn(5) == 0 {
		spec["strategy"] = map[string]any{"type": pick(r, "Recreate", "RollingUpdate")}
	}
	if r.Intn(3) != 0 {
		var containers []any
		for _, n := range []string{"a", "b", "c"} {
			if r.Intn(2) == 0 {
				containers = append(containers, genContainer(r, n))
			}
		}
		podSpec := map[string]any{}
		if containers != nil {
			podSpec["containers"] = containers
		}
		if r.Intn(5) == 0 {
			podSpec["tolerations"] = []any{map[string]any{"key": pick(r, "k1", "k2"), "operator": "Exists"}}
		}
		if r.Intn(6) == 0 {
			podSpec["nodeSelector"] = randLabels(r)
		}
		tmpl := map[string]any{"spec": podSpec}
		if r.Intn(3) == 0 {
			tmpl["metadata"] = map[string]any{"labels": randLabels(r)}
		}
		spec["template"] = tmpl
	}
	if len(spec) > 0 {
		obj["spec"] = spec
	}
	if r.Intn(6) == 0 {
		obj["status"] = map[string]any{"replicas": int64(r.Intn(3)), "observedGeneration": int64(r.Intn(2))}
	}
	return obj
}

// genConfigMap returns a random v1 ConfigMap apply configuration.
func genConfigMap(r *rand.Rand) map[string]any {
	md := map[string]any{"name": "cm"}
	if r.Intn(2) == 0 {
		md["labels"] = randLabels(r)
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
	data := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d"} {
		if r.Intn(2) == 0 {
			data[k] = pick(r, "1", "2")
		}
	}
	if len(data) > 0 || r.Intn(2) == 0 {
		obj["data"] = data
	}
	if r.Intn(8) == 0 {
		obj["immutable"] = false
	}
	return obj
}

// mutateConfig occasionally turns a config into bad input or a kubectl upgrade scenario.
func mutateConfig(r *rand.Rand, config, live map[string]any) {
	switch r.Intn(30) {
	case 0: // managedFields in the config
		md := config["metadata"].(map[string]any)
		md["managedFields"] = pick[any](r, []any{}, []any{map[string]any{"manager": "x", "operation": "Apply"}}, nil, "junk")
	case 1: // wrong kind
		config["kind"] = "ReplicaSet"
	case 2: // wrong version
		config["apiVersion"] = pick(r, "apps/v1beta1", "v1", "a/b/c")
	case 3: // duplicate keys in a keyed list
		if spec, ok := config["spec"].(map[string]any); ok {
			if tmpl, ok := spec["template"].(map[string]any); ok {
				ps := tmpl["spec"].(map[string]any)
				ps["containers"] = []any{map[string]any{"name": "a", "image": "x"}, map[string]any{"name": "a", "image": "y"}}
			}
		}
		if data, ok := config["data"].(map[string]any); ok {
			data["x"] = "y"
		}
	case 4, 5, 6: // a kubectl client-side apply record on the live object and in the config
		if live != nil {
			last := deepCopy(live)
			delete(last, "status")
			if md, ok := last["metadata"].(map[string]any); ok {
				delete(md, "managedFields")
				delete(md, "uid")
				delete(md, "annotations")
			}
			b, _ := json.Marshal(last)
			md := config["metadata"].(map[string]any)
			ann, _ := md["annotations"].(map[string]any)
			if ann == nil {
				ann = map[string]any{}
				md["annotations"] = ann
			}
			ann["kubectl.kubernetes.io/last-applied-configuration"] = string(b) + "\n"
		}
	case 7: // unknown field
		config["spec"] = map[string]any{"bogus": int64(1)}
	}
}

// mergeInto overlays src onto dst (maps merged, everything else replaced); dst is changed.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeInto(dm, sm)
				continue
			}
		}
		dst[k] = deepValue(v)
	}
}

func deepValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopy(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepValue(x)
		}
		return out
	}
	return v
}

// updatedObject builds the object of a non-apply write: the live object with a random config
// laid over it, random removals, and sometimes edited managedFields.
func updatedObject(r *rand.Rand, sc scenario, live map[string]any) map[string]any {
	wide := sc.name == "configmap-many-managers"
	var obj map[string]any
	if live == nil || !wide && r.Intn(5) == 0 {
		obj = sc.gen(r)
	} else {
		obj = deepCopy(live)
		mergeInto(obj, sc.gen(r))
	}
	if !wide && r.Intn(3) == 0 {
		if spec, ok := obj["spec"].(map[string]any); ok {
			for k := range spec {
				if r.Intn(3) == 0 {
					delete(spec, k)
				}
			}
		}
		if data, ok := obj["data"].(map[string]any); ok {
			for k := range data {
				if r.Intn(3) == 0 {
					delete(data, k)
				}
			}
		}
	}
	md, _ := obj["metadata"].(map[string]any)
	if md != nil && (!wide || r.Intn(5) == 0) {
		switch r.Intn(12) {
		case 0:
			md["managedFields"] = []any{}
		case 1:
			md["managedFields"] = []any{map[string]any{}}
		case 2:
			delete(md, "managedFields")
		case 3:
			md["managedFields"] = []any{map[string]any{"manager": "m", "operation": "Patch", "apiVersion": "x"}}
		case 4:
			md["managedFields"] = []any{map[string]any{"manager": "hand", "operation": "Update", "apiVersion": sc.gvk.GroupVersion().String(),
				"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{}}}}}
		}
	}
	if r.Intn(20) == 0 && md != nil {
		// duplicates are allowed in updates
		if spec, ok := obj["spec"].(map[string]any); ok {
			spec["template"] = map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}}}
		}
	}
	return obj
}

// genWideConfigMap sets a few of many keys, so that many managers can own fields at once (the
// cap on Update managers).
func genWideConfigMap(r *rand.Rand) map[string]any {
	data := map[string]any{}
	for i := 0; i < 2; i++ {
		data["k"+string(rune('a'+r.Intn(26)))] = pick(r, "1", "2", "3")
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "wide"}, "data": data}
}
