package admission

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/warning"

	"github.com/writepath/writepath/admission"
)

// referenceWarningHeaders runs texts through k8s.io/apiserver's warning
// recorder (filters.WithWarningRecorder, warning.AddWarning as the admission
// plugins call it) and returns the Warning headers of the response.
func referenceWarningHeaders(texts []string) []string {
	h := filters.WithWarningRecorder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, t := range texts {
			warning.AddWarning(r.Context(), "", t)
		}
		w.WriteHeader(http.StatusOK)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	return rec.Result().Header.Values("Warning")
}

// genWarnings draws a sequence of warning texts around the recorder's limits:
// lengths near 256 and 4096 runes, one- to four-byte runes, invalid bytes,
// control characters, quotes, and repeats of earlier texts.
func genWarnings(rng *rand.Rand) []string {
	alphabets := []string{"a", "é", "€", "😀", "\"", "\\", "\xff", "\n", "=?utf-8?q?x?="}
	lengths := []int{0, 1, 2, 100, 255, 256, 257, 300, 1000, 2047, 2048, 3839, 3840, 4095, 4096, 4097, 5000}
	n := rng.IntN(30)
	var out []string
	for i := 0; i < n; i++ {
		if len(out) > 0 && rng.IntN(5) == 0 {
			out = append(out, out[rng.IntN(len(out))])
			continue
		}
		l := pick(rng, lengths...)
		if rng.IntN(3) == 0 {
			l = rng.IntN(600)
		}
		base := pick(rng, alphabets...)
		var b strings.Builder
		for runes := 0; runes < l; {
			s := base
			if rng.IntN(50) == 0 {
				s = pick(rng, alphabets...)
			}
			if k := l - runes; k > 8 && rng.IntN(2) == 0 {
				s = strings.Repeat(s, k/2)
			}
			b.WriteString(s)
			runes += utf8.RuneCountInString(s)
		}
		out = append(out, b.String())
	}
	return out
}

// TestResponseWarnings compares admission.ResponseWarnings with the
// apiserver's warning recorder: the headers written must be byte-for-byte
// those net.NewWarningHeader makes of writepath's texts. 1,500 sequences
// normally, 100,000 with WRITEPATH_LONG=1.
func TestResponseWarnings(t *testing.T) {
	n := sampleSize(1500)
	// The recorder reports each truncation through utilruntime.HandleError.
	saved := utilruntime.ErrorHandlers
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{func(context.Context, error, string, ...any) {}}
	defer func() { utilruntime.ErrorHandlers = saved }()
	rng := rand.New(rand.NewPCG(6, 6))
	disagreements, truncated := 0, 0
	for i := 0; i < n; i++ {
		texts := genWarnings(rng)
		want := referenceWarningHeaders(texts)
		got := admission.ResponseWarnings(texts)
		var gotHeaders []string
		for _, g := range got {
			h, err := utilnet.NewWarningHeader(299, "", g)
			require.NoError(t, err, "writepath kept a text the apiserver cannot write: %q", g)
			gotHeaders = append(gotHeaders, h)
		}
		total := 0
		for _, x := range texts {
			total += utf8.RuneCountInString(x)
		}
		if total > admission.ResponseWarningTotalRunes {
			truncated++
		}
		if !assert.Equal(t, want, gotHeaders, "case %d: %d texts", i, len(texts)) {
			disagreements++
			if disagreements > 5 {
				t.FailNow()
			}
		}
	}
	t.Logf("%d sequences (%d whose texts add up past the total limit), %d disagreements", n, truncated, disagreements)
}
