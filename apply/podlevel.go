package apply

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/writepath/writepath/versions"
)

// quantity is a resource.Quantity as the pod-level defaulting computes with it: an exact value
// and the format its string is rendered in.
type quantity struct {
	v      *big.Rat
	format byte // 'd' DecimalSI, 'b' BinarySI, 'e' DecimalExponent
}

func parseQty(v any) (quantity, bool) {
	s, ok := v.(string)
	if !ok {
		return quantity{}, false
	}
	r, ok := versions.QuantityValue(s)
	if !ok {
		return quantity{}, false
	}
	i := 0
	for i < len(s) && strings.ContainsRune("+-0123456789.", rune(s[i])) {
		i++
	}
	f := byte('d')
	switch suffix := s[i:]; {
	case strings.HasSuffix(suffix, "i"):
		f = 'b'
	case len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E'):
		f = 'e'
	}
	return quantity{v: r, format: f}, true
}

// add is Quantity.Add: a zero receiver takes the other's format.
func (q quantity) add(y quantity) quantity {
	f := q.format
	if q.v.Sign() == 0 {
		f = y.format
	}
	return quantity{v: new(big.Rat).Add(q.v, y.v), format: f}
}

// String is Quantity.String (CanonicalizeBytes): base 1024 for a BinarySI integer of at least
// 1024 in magnitude, otherwise the smallest exponent multiple of 3 with an integer mantissa.
func (q quantity) String() string {
	if q.v.Sign() == 0 {
		return "0"
	}
	f := q.format
	if f == 'b' {
		lim := big.NewRat(1024, 1)
		abs := new(big.Rat).Abs(q.v)
		if abs.Cmp(lim) < 0 || !q.v.IsInt() {
			f = 'd'
		} else {
			n := new(big.Int).Set(q.v.Num())
			exp := 0
			k := big.NewInt(1024)
			m := new(big.Int)
			for exp < 6 {
				if _, r := new(big.Int).QuoRem(n, k, m); r.Sign() != 0 {
					break
				}
				n.Quo(n, k)
				exp++
			}
			return n.String() + []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}[exp]
		}
	}
	// Mantissa and exponent: value = m × 10^e, m without trailing zeros (nano precision).
	nano := new(big.Rat).Mul(q.v, big.NewRat(1_000_000_000, 1))
	m := new(big.Int).Quo(nano.Num(), nano.Denom())
	e := -9
	ten, r := big.NewInt(10), new(big.Int)
	for {
		q10, rem := new(big.Int).QuoRem(m, ten, r)
		if rem.Sign() != 0 {
			break
		}
		m, e = q10, e+1
	}
	switch e % 3 {
	case 1, -2:
		m.Mul(m, ten)
		e--
	case 2, -1:
		m.Mul(m, big.NewInt(100))
		e -= 2
	}
	if f == 'd' {
		if s, ok := map[int]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}[e]; ok {
			return m.String() + s
		}
	}
	if e == 0 {
		return m.String()
	}
	return fmt.Sprintf("%se%d", m.String(), e)
}

// qtyList is a ResourceList with exact values, in the order keys were added.
type qtyList map[string]quantity

func readList(v any) qtyList {
	out := qtyList{}
	for k, x := range mapOf(v) {
		if q, ok := parseQty(x); ok {
			out[k] = q
		}
	}
	return out
}

func (l qtyList) addList(o qtyList) {
	for k, q := range o {
		if cur, ok := l[k]; ok {
			l[k] = cur.add(q)
		} else {
			l[k] = q
		}
	}
}

func (l qtyList) maxList(o qtyList) {
	for k, q := range o {
		if cur, ok := l[k]; !ok || q.v.Cmp(cur.v) > 0 {
			l[k] = q
		}
	}
}

// aggregateContainers is resourcehelper's aggregateContainerResourcesByFn over the spec's
// requests or limits: the containers' sum, and the init containers' peak (a sidecar adds to
// the containers and to every later init container).
func aggregateContainers(spec map[string]any, key string) qtyList {
	result := qtyList{}
	for _, c := range listOf(spec["containers"]) {
		result.addList(readList(mapOf(mapOf(c)["resources"])[key]))
	}
	restartable, initPeak := qtyList{}, qtyList{}
	for _, c := range listOf(spec["initContainers"]) {
		res := readList(mapOf(mapOf(c)["resources"])[key])
		if restartableInit(mapOf(c)) {
			result.addList(res)
			restartable.addList(res)
			res = restartable
		} else {
			combined := qtyList{}
			combined.addList(res)
			combined.addList(restartable)
			res = combined
		}
		initPeak.maxList(res)
	}
	result.maxList(initPeak)
	return result
}

func supportedPodLevel(name string) bool {
	return name == "cpu" || name == "memory" || strings.HasPrefix(name, "hugepages-")
}

func overcommitAllowed(name string) bool {
	native := !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
	return native && !strings.HasPrefix(name, "hugepages-")
}

// DefaultPodLevelResources is podutil.DefaultPodLevelResources for a Pod spec (the Pod
// strategy's PrepareForCreate calls it): nothing when the spec sets no pod-level resources,
// otherwise defaultPodLevelResources. spec is changed in place.
func DefaultPodLevelResources(spec map[string]any) {
	if _, ok := present(spec, "resources"); ok {
		defaultPodLevelResources(spec)
	}
}

// defaultPodLevelResources is podutil.DefaultPodLevelResources (PodLevelResources and
// PodLevelResourcesFixDefaulting on): pod-level hugepage limits from the containers' limits,
// missing pod-level requests from the containers' requests (overcommittable resources) and
// from the pod-level limits, and missing pod-level limits as the larger of the pod-level
// request and the containers' limits when every container (ephemeral ones included) sets one.
// spec is changed in place.
func defaultPodLevelResources(spec map[string]any) {
	res := copyMapOrNil(spec["resources"])
	if res == nil || len(mapOf(res["requests"]))+len(mapOf(res["limits"])) == 0 {
		return
	}
	spec["resources"] = res
	reqs, lims := copyMapOrNil(res["requests"]), copyMapOrNil(res["limits"])
	if lims == nil {
		lims = map[string]any{}
	}
	for name, q := range aggregateContainers(spec, "limits") {
		if !supportedPodLevel(name) || !strings.HasPrefix(name, "hugepages-") {
			continue
		}
		if _, ok := mapOf(res["requests"])[name]; ok {
			continue
		}
		if _, ok := lims[name]; !ok {
			lims[name] = q.String()
		}
	}
	if len(lims) > 0 {
		res["limits"] = lims
	}
	if reqs == nil {
		reqs = map[string]any{}
	}
	for name, q := range aggregateContainers(spec, "requests") {
		if _, ok := reqs[name]; !ok && supportedPodLevel(name) && overcommitAllowed(name) {
			reqs[name] = q.String()
		}
	}
	for name, l := range mapOf(res["limits"]) {
		if _, ok := reqs[name]; !ok && supportedPodLevel(name) {
			reqs[name] = l
		}
	}
	if len(reqs) > 0 {
		res["requests"] = reqs
	}
	// Limits: candidates are requested resources without a pod-level limit that every
	// container, init container and ephemeral container limits.
	candidates := map[string]bool{}
	for name := range reqs {
		if _, ok := mapOf(res["limits"])[name]; !ok && supportedPodLevel(name) {
			candidates[name] = true
		}
	}
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range listOf(spec[key]) {
			l := mapOf(mapOf(mapOf(c)["resources"])["limits"])
			for name := range candidates {
				if _, ok := l[name]; !ok {
					delete(candidates, name)
				}
			}
		}
	}
	if len(candidates) == 0 {
		return
	}
	aggr := aggregateContainers(spec, "limits")
	for name := range candidates {
		val, ok := aggr[name]
		if !ok {
			continue
		}
		if req, ok := parseQty(reqs[name]); ok && req.v.Cmp(val.v) > 0 {
			val = req
		}
		l := copyMapOrNil(res["limits"])
		if l == nil {
			l = map[string]any{}
		}
		l[name] = val.String()
		res["limits"] = l
	}
}
