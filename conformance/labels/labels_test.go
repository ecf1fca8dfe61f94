package labels

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	klabels "k8s.io/apimachinery/pkg/labels"

	wplabels "github.com/writepath/writepath/internal/labels"
)

// sampleSize is n by default and 100,000 with WRITEPATH_LONG=1.
func sampleSize(n int) int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 100000
	}
	return n
}

var pieces = []string{"a", "b", "c", "app", "x.io/k", "k8s.io/a/b", "-a", "a-", "A_b.c", "1", "2", "10",
	"=", "==", "!=", "!", "in", "notin", "(", ")", ",", " ", "\t", ">", "<", "=>", "!!", "",
	strings.Repeat("v", 64), "ö", "a b", "\x00", "exists", "gt"}

func randomSelector(r *rand.Rand) string {
	var b strings.Builder
	for i := r.IntN(9); i > 0; i-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// wellFormed draws selectors that parse more often than random token soup does.
func wellFormed(r *rand.Rand) string {
	keys := []string{"a", "b", "app", "x.io/k", "tier"}
	vals := []string{"", "1", "2", "v", "w", "10"}
	var parts []string
	for i := r.IntN(4); i >= 0; i-- {
		k := keys[r.IntN(len(keys))]
		switch r.IntN(8) {
		case 0:
			parts = append(parts, k)
		case 1:
			parts = append(parts, "!"+k)
		case 2:
			parts = append(parts, k+"="+vals[r.IntN(len(vals))])
		case 3:
			parts = append(parts, k+"=="+vals[r.IntN(len(vals))])
		case 4:
			parts = append(parts, k+"!="+vals[r.IntN(len(vals))])
		case 5, 6:
			op := []string{" in ", " notin "}[r.IntN(2)]
			var vs []string
			for j := r.IntN(3); j >= 0; j-- {
				vs = append(vs, vals[r.IntN(len(vals))])
			}
			parts = append(parts, k+op+"("+strings.Join(vs, ",")+")")
		case 7:
			parts = append(parts, k+[]string{">", "<"}[r.IntN(2)]+vals[r.IntN(len(vals))])
		}
	}
	return strings.Join(parts, ",")
}

func randomLabels(r *rand.Rand) map[string]string {
	keys := []string{"a", "b", "app", "x.io/k", "tier"}
	vals := []string{"", "1", "2", "v", "w", "10", "x"}
	out := map[string]string{}
	for i := r.IntN(5); i > 0; i-- {
		out[keys[r.IntN(len(keys))]] = vals[r.IntN(len(vals))]
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return "<ok>"
	}
	return err.Error()
}

func TestParseAgainstApimachinery(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 1))
	n := sampleSize(5000)
	disagreements, errs := 0, 0
	for i := 0; i < n; i++ {
		var s string
		if i%2 == 0 {
			s = randomSelector(r)
		} else {
			s = wellFormed(r)
		}
		want, wantErr := klabels.Parse(s)
		got, gotErr := wplabels.Parse(s)
		if !assert.Equal(t, errString(wantErr), errString(gotErr), "Parse(%q)", s) {
			disagreements++
			continue
		}
		if wantErr != nil {
			errs++
			continue
		}
		if !assert.Equal(t, want.String(), got.String(), "Parse(%q).String()", s) {
			disagreements++
		}
		for j := 0; j < 4; j++ {
			ls := randomLabels(r)
			if !assert.Equal(t, want.Matches(klabels.Set(ls)), got.Matches(ls), "Parse(%q).Matches(%v)", s, ls) {
				disagreements++
			}
		}
		if disagreements > 20 {
			t.FailNow()
		}
	}
	t.Logf("%d selectors (%d refused), %d disagreements", n, errs, disagreements)
}

func randomLabelSelector(r *rand.Rand) (*metav1.LabelSelector, any) {
	if r.IntN(10) == 0 {
		return nil, nil
	}
	keys := []string{"a", "b", "app", "x.io/k", "-bad", "a/b/c", ""}
	vals := []string{"", "1", "v", "w", "bad value", strings.Repeat("v", 64)}
	ops := []metav1.LabelSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "in", "Equals"}
	ls := &metav1.LabelSelector{}
	obj := map[string]any{}
	if r.IntN(2) == 0 {
		ls.MatchLabels = map[string]string{}
		ml := map[string]any{}
		// One invalid entry at most: LabelSelectorAsSelector reports the first invalid
		// one in Go's random map order.
		bad := false
		for i := r.IntN(3); i > 0; i-- {
			k, v := keys[r.IntN(len(keys))], vals[r.IntN(len(vals))]
			invalid := len(wpKeyErrs(k, v)) > 0
			if invalid && bad {
				continue
			}
			bad = bad || invalid
			ls.MatchLabels[k] = v
			ml[k] = v
		}
		obj["matchLabels"] = ml
	}
	if r.IntN(2) == 0 {
		var exprs []any
		for i := r.IntN(3); i > 0; i-- {
			e := metav1.LabelSelectorRequirement{Key: keys[r.IntN(len(keys))], Operator: ops[r.IntN(len(ops))]}
			em := map[string]any{"key": e.Key, "operator": string(e.Operator)}
			if n := r.IntN(3); n > 0 || r.IntN(2) == 0 {
				var vs []any
				for j := 0; j < n; j++ {
					v := vals[r.IntN(len(vals))]
					e.Values = append(e.Values, v)
					vs = append(vs, v)
				}
				em["values"] = vs
			}
			ls.MatchExpressions = append(ls.MatchExpressions, e)
			exprs = append(exprs, em)
		}
		obj["matchExpressions"] = exprs
	}
	return ls, obj
}

func wpKeyErrs(k, v string) []string {
	_, err := wplabels.NewRequirement(k, wplabels.Equals, []string{v})
	if err != nil {
		return []string{err.Error()}
	}
	return nil
}

func TestLabelSelectorAgainstApimachinery(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	n := sampleSize(5000)
	disagreements, errs := 0, 0
	for i := 0; i < n; i++ {
		ls, obj := randomLabelSelector(r)
		var in any
		if obj != nil {
			in = obj
		}
		want, wantErr := metav1.LabelSelectorAsSelector(ls)
		got, gotErr := wplabels.FromLabelSelector(in)
		desc := fmt.Sprintf("%+v", ls)
		if !assert.Equal(t, errString(wantErr), errString(gotErr), "LabelSelectorAsSelector(%s)", desc) {
			disagreements++
			continue
		}
		if wantErr != nil {
			errs++
			continue
		}
		// Requirements with equal keys keep their order in ours (stable sort); the
		// reference's sort.Sort may swap them, so compare the printed requirements as sets.
		if !assert.Equal(t, sortedParts(want.String()), sortedParts(got.String()), "String of %s", desc) {
			disagreements++
		}
		assert.Equal(t, want.Empty(), got.Empty(), "Empty of %s", desc)
		for j := 0; j < 4; j++ {
			l := randomLabels(r)
			if !assert.Equal(t, want.Matches(klabels.Set(l)), got.Matches(l), "%s matches %v", desc, l) {
				disagreements++
			}
		}
		if disagreements > 20 {
			t.FailNow()
		}
	}
	t.Logf("%d label selectors (%d refused), %d disagreements", n, errs, disagreements)
}

func sortedParts(s string) []string {
	// Split at commas outside parentheses.
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, s[start:])
	sort.Strings(parts)
	return parts
}

func TestNilAndEmpty(t *testing.T) {
	got, err := wplabels.FromLabelSelector(nil)
	require.NoError(t, err)
	assert.True(t, got.MatchesNothing())
	want, _ := metav1.LabelSelectorAsSelector(nil)
	assert.Equal(t, want.Matches(klabels.Set{}), got.Matches(map[string]string{}))
}
