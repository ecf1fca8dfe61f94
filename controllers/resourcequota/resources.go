package resourcequota

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/internal/quantity"
)

// ResourceList is a quota's resource list (status.hard, status.used, an object's usage): resource
// names to quantities, as corev1.ResourceList.
type ResourceList map[string]quantity.Quantity

var (
	zero = quantity.FromInt64(0, quantity.DecimalSI)
	one  = quantity.FromInt64(1, quantity.DecimalSI)
)

// names are the list's resource names, sorted.
func (l ResourceList) names() []string {
	out := make([]string, 0, len(l))
	for k := range l {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// String is prettyPrint: name=value pairs in name order, comma-separated.
func (l ResourceList) String() string {
	parts := make([]string, 0, len(l))
	for _, k := range l.names() {
		parts = append(parts, k+"="+l[k].String())
	}
	return strings.Join(parts, ",")
}

// JSON is the list as an object holds it: name to the quantity's string.
func (l ResourceList) JSON() map[string]any {
	out := make(map[string]any, len(l))
	for k, q := range l {
		out[k] = q.String()
	}
	return out
}

// readList reads a resource list from an object (nil when absent). A value that is not a
// quantity is left out: the objects the quota code reads have passed validation.
func readList(v any) ResourceList {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(ResourceList, len(m))
	for k, x := range m {
		if q, ok := parseValue(x); ok {
			out[k] = q
		}
	}
	return out
}

func parseValue(x any) (quantity.Quantity, bool) {
	var s string
	switch v := x.(type) {
	case string:
		s = v
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return quantity.Quantity{}, false
	}
	q, err := quantity.Parse(s)
	return q, err == nil
}

// add is quota.Add: the sum of a and b, key by key.
func add(a, b ResourceList) (ResourceList, error) {
	out := make(ResourceList, len(a)+len(b))
	for k, v := range a {
		if o, ok := b[k]; ok {
			s, err := v.Add(o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			v = s
		}
		out[k] = v
	}
	for k, v := range b {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out, nil
}

// subtractNonNegative is quota.SubtractWithNonNegativeResult: a-b key by key, floored at zero
// (the zero is "0"), with b's keys missing from a as zero.
func subtractNonNegative(a, b ResourceList) (ResourceList, error) {
	zeroParsed := quantity.MustParse("0")
	out := make(ResourceList, len(a)+len(b))
	for k, v := range a {
		if o, ok := b[k]; ok {
			d, err := v.Sub(o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			v = d
		}
		if v.Sign() > 0 {
			out[k] = v
		} else {
			out[k] = zeroParsed
		}
	}
	for k := range b {
		if _, ok := out[k]; !ok {
			out[k] = zeroParsed
		}
	}
	return out, nil
}

// mask is quota.Mask: the entries of l named in names.
func mask(l ResourceList, names []string) ResourceList {
	set := toSet(names)
	out := ResourceList{}
	for k, v := range l {
		if set[k] {
			out[k] = v
		}
	}
	return out
}

// removeZeros is quota.RemoveZeros.
func removeZeros(l ResourceList) ResourceList {
	out := ResourceList{}
	for k, v := range l {
		if !v.IsZero() {
			out[k] = v
		}
	}
	return out
}

// negative is quota.IsNegative: the names of negative entries, sorted.
func negative(l ResourceList) []string {
	var out []string
	for k, v := range l {
		if v.Sign() < 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// equal is quota.Equals: the same names with equal values.
func equal(a, b ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		o, ok := b[k]
		if !ok || v.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

// lessOrEqual is quota.LessThanOrEqual: whether every entry of a that b limits is within it,
// and the names that are not (sorted).
func lessOrEqual(a, b ResourceList) (bool, []string) {
	var exceeded []string
	for k, limit := range b {
		if v, ok := a[k]; ok && v.Cmp(limit) > 0 {
			exceeded = append(exceeded, k)
		}
	}
	sort.Strings(exceeded)
	return len(exceeded) == 0, exceeded
}

func toSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// intersection is quota.Intersection: the names of a also in b, without duplicates, sorted.
func intersection(a, b []string) []string {
	in := toSet(b)
	seen := map[string]bool{}
	var out []string
	for _, x := range a {
		if in[x] && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// difference is quota.Difference: the names of a not in b, without duplicates, sorted.
func difference(a, b []string) []string {
	not := toSet(b)
	seen := map[string]bool{}
	var out []string
	for _, x := range a {
		if !not[x] && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
