package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Warning returns the warning the apiserver adds to every request served through this version:
// its deprecationWarning, or for a deprecated version without one the generic text
// "<group>/<version> <Kind> is deprecated", followed by "; use <group>/<newer> <Kind>" naming the
// newest served, non-deprecated version newer than it (apiextensions' customresource_handler).
// It is "" for a version that is not deprecated.
func (v *Version) Warning() string {
	if v == nil || !v.Deprecated {
		return ""
	}
	if v.DeprecationWarning != nil {
		return *v.DeprecationWarning
	}
	g, kind := v.crd.Group, v.crd.Names.Kind
	msg := fmt.Sprintf("%s/%s %s is deprecated", g, v.Name, kind)
	var newer []string
	for _, o := range v.crd.Versions {
		if o.Served && !o.Deprecated && CompareVersions(v.Name, o.Name) < 0 {
			newer = append(newer, o.Name)
		}
	}
	if len(newer) > 0 {
		sort.SliceStable(newer, func(i, j int) bool { return CompareVersions(newer[i], newer[j]) > 0 })
		msg += fmt.Sprintf("; use %s/%s %s", g, newer[0], kind)
	}
	return msg
}

var kubeVersion = regexp.MustCompile(`^v([\d]+)(?:(alpha|beta)([\d]+))?$`)

func parseKubeVersion(v string) (major, typ, minor int, ok bool) {
	m := kubeVersion.FindStringSubmatch(v)
	if m == nil {
		return 0, 0, 0, false
	}
	switch m[2] {
	case "alpha":
		typ = 0
	case "beta":
		typ = 1
	default:
		typ = 2
	}
	var err error
	if major, err = strconv.Atoi(m[1]); err != nil {
		return 0, 0, 0, false
	}
	if typ != 2 {
		if minor, err = strconv.Atoi(m[3]); err != nil {
			return 0, 0, 0, false
		}
	}
	return major, typ, minor, true
}

// CompareVersions orders version names as Kubernetes does (apimachinery's
// CompareKubeAwareVersionStrings): GA > beta > alpha, then by major and minor number; names
// that do not look like Kubernetes versions sort below those that do, in reverse lexical order.
// The result is negative, zero or positive.
func CompareVersions(a, b string) int {
	if a == b {
		return 0
	}
	am, at, an, aok := parseKubeVersion(a)
	bm, bt, bn, bok := parseKubeVersion(b)
	switch {
	case !aok && !bok:
		return strings.Compare(b, a)
	case !aok:
		return -1
	case !bok:
		return 1
	}
	if at != bt {
		return at - bt
	}
	if am != bm {
		return am - bm
	}
	return an - bn
}
