package cluster

import (
	"sort"
	"strconv"
	"strings"
)

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	mediaType string // lower-case type/subtype
	params    map[string]string
	q         float64
}

// parseAccept splits an Accept header into its media ranges, highest q first (the order written
// among equals), leaving out those with q=0 or that do not parse. Media types are compared as
// written, so names with characters MIME calls special ("spec.v2@v1.0") are kept.
func parseAccept(accept string) []acceptClause {
	var out []acceptClause
	for i, part := range strings.Split(accept, ",") {
		if i >= maxAcceptClauses {
			break
		}
		fields := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		if !strings.Contains(mt, "/") {
			continue
		}
		cl := acceptClause{mediaType: mt, params: map[string]string{}, q: 1}
		valid := true
		for _, f := range fields[1:] {
			k, v, found := strings.Cut(f, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			v = strings.Trim(strings.TrimSpace(v), `"`)
			if !found || k == "" {
				continue
			}
			if k == "q" {
				q, err := strconv.ParseFloat(v, 64)
				if err != nil || q <= 0 || q > 1 {
					valid = false
				}
				cl.q = q
				continue
			}
			cl.params[k] = v
		}
		if valid {
			out = append(out, cl)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].q > out[b].q })
	return out
}
