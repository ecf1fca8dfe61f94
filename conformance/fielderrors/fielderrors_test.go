// Package fielderrors compares writepath's field and status packages with
// k8s.io/apimachinery's util/validation/field, util/errors aggregates and
// api/errors StatusError (and the apiserver's Status encoding) on seeded random
// inputs. Every disagreement is a writepath bug.
package fielderrors

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	reffield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/writepath/writepath/field"
)

// maxReported bounds the disagreements printed per test.
const maxReported = 20

// tally counts cases and disagreements and reports both at the end.
type tally struct {
	t        *testing.T
	name     string
	cases    int
	checks   int
	disagree int
}

func (c *tally) check(equal bool, format string, args ...any) {
	c.t.Helper()
	c.checks++
	if equal {
		return
	}
	c.disagree++
	if c.disagree <= maxReported {
		c.t.Errorf(format, args...)
	}
}

func (c *tally) report() {
	c.t.Logf("%s: %d cases, %d comparisons, %d disagreements", c.name, c.cases, c.checks, c.disagree)
	assert.Zero(c.t, c.disagree, "%s: disagreements with the reference", c.name)
}

func TestPathRendering(t *testing.T) {
	g := newGen(1)
	c := &tally{t: t, name: "field.Path.String"}
	for range sampleSize(5000) {
		ours, ref := g.path()
		c.cases++
		c.check(ours.String() == ref.String(), "path %v: ours %q, reference %q",
			ours.Segments(), ours.String(), ref.String())
	}
	c.report()
}

func TestErrorStrings(t *testing.T) {
	g := newGen(2)
	c := &tally{t: t, name: "field.Error Error/ErrorBody"}
	byKind := map[string]int{}
	for range sampleSize(5000) {
		ours, ref, kind := g.errPair()
		byKind[kind]++
		c.cases++
		c.check(ours.Error() == ref.Error() && ours.ErrorBody() == ref.ErrorBody() &&
			string(ours.Type) == string(ref.Type) && ours.Field == ref.Field && ours.Detail == ref.Detail,
			"%s: ours %q, reference %q (value %#v)", kind, printable(ours.Error()), printable(ref.Error()), ref.BadValue)
	}
	t.Logf("cases by constructor: %v", byKind)
	c.report()
}

func TestErrorListAggregate(t *testing.T) {
	g := newGen(3)
	c := &tally{t: t, name: "field.ErrorList ToAggregate/Filter"}
	for range sampleSize(5000) {
		ours, ref := g.listPair()
		c.cases++
		oa, ra := ours.ToAggregate(), ref.ToAggregate()
		c.check((oa == nil) == (ra == nil), "nil aggregate: ours %v, reference %v", oa, ra)
		if oa != nil && ra != nil {
			c.check(oa.Error() == ra.Error(), "aggregate: ours %q, reference %q", printable(oa.Error()), printable(ra.Error()))
		}
		typ := allTypes[g.intn(len(allTypes))]
		of := ours.Filter(field.OfType(typ))
		rf := ref.Filter(reffield.NewErrorTypeMatcher(reffield.ErrorType(typ)))
		c.check(listText(of) == refListText(rf), "Filter(%s): ours %q, reference %q", typ, listText(of), refListText(rf))
	}
	c.report()
}

func listText(l field.ErrorList) string {
	if l == nil {
		return "nil"
	}
	return fmt.Sprint(len(l), []*field.Error(l))
}

func refListText(l reffield.ErrorList) string {
	if l == nil {
		return "nil"
	}
	return fmt.Sprint(len(l), []*reffield.Error(l))
}
