// Package validation compares writepath's shared name and label validators with apimachinery's.
package validation

import (
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/writepath/writepath/internal/validation"
)

func cases() int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 200_000
	}
	return 5_000
}

// alphabet leans on the characters the rules care about.
const alphabet = "abcz09AZ-._/%é "

func randomString(r *rand.Rand) string {
	n := r.Intn(12)
	switch r.Intn(20) {
	case 0:
		n = 60 + r.Intn(8) // around the 63 limit
	case 1:
		n = 250 + r.Intn(8) // around the 253 limit
	}
	var b strings.Builder
	runes := []rune(alphabet)
	for i := 0; i < n; i++ {
		if r.Intn(3) == 0 {
			b.WriteByte('a')
			continue
		}
		b.WriteRune(runes[r.Intn(len(runes))])
	}
	return b.String()
}

func TestValidatorsAgree(t *testing.T) {
	r := rand.New(rand.NewSource(20261129))
	type pair struct {
		name string
		ours func(string) []string
		ref  func(string) []string
	}
	pairs := []pair{
		{"IsDNS1123Subdomain", validation.IsDNS1123Subdomain, utilvalidation.IsDNS1123Subdomain},
		{"IsDNS1123Label", validation.IsDNS1123Label, utilvalidation.IsDNS1123Label},
		{"IsDNS1035Label", validation.IsDNS1035Label, utilvalidation.IsDNS1035Label},
		{"IsQualifiedName", validation.IsQualifiedName, utilvalidation.IsQualifiedName},
		{"IsValidLabelValue", validation.IsValidLabelValue, utilvalidation.IsValidLabelValue},
		{"IsValidPathSegmentName", validation.IsValidPathSegmentName, path.IsValidPathSegmentName},
		{"NameIsDNSSubdomain(prefix)", func(s string) []string { return validation.NameIsDNSSubdomain(s, true) }, func(s string) []string { return apivalidation.NameIsDNSSubdomain(s, true) }},
		{"NameIsDNSLabel(prefix)", func(s string) []string { return validation.NameIsDNSLabel(s, true) }, func(s string) []string { return apivalidation.NameIsDNSLabel(s, true) }},
		{"NameIsDNS1035Label(prefix)", func(s string) []string { return validation.NameIsDNS1035Label(s, true) }, func(s string) []string { return apivalidation.NameIsDNS1035Label(s, true) }},
		{"NameIsPathSegment(prefix)", func(s string) []string { return validation.NameIsPathSegment(s, true) }, func(s string) []string { return path.ValidatePathSegmentName(s, true) }},
	}
	n, disagreements := cases(), 0
	for i := 0; i < n; i++ {
		s := randomString(r)
		if r.Intn(4) == 0 && len(s) > 0 {
			s = s[:len(s)-1] + "-"
		}
		for _, p := range pairs {
			if !assert.Equal(t, p.ref(s), p.ours(s), "%s(%q)", p.name, s) {
				disagreements++
			}
		}
	}
	t.Logf("%d strings x %d validators, %d disagreements", n, len(pairs), disagreements)
}
