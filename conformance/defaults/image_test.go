package defaults

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// randomImage builds image references from the pieces of the distribution/reference grammar,
// valid and not: domains (with ports, IPv6, upper case, localhost), path components with
// separators, tags (latest, upper case, too long), digests of each algorithm and length.
func randomImage(r *rand.Rand) string {
	pick := func(l ...string) string { return l[r.Intn(len(l))] }
	var b strings.Builder
	switch r.Intn(4) {
	case 0:
		b.WriteString(pick("docker.io/", "index.docker.io/", "localhost/", "localhost:5000/", "example.com/", "Example.com/", "[::1]:5000/", "my-registry:5000/", "UPPER/", "a_b/", "-bad.com/"))
	}
	n := 1 + r.Intn(3)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(pick("nginx", "library", "a", "app-1", "a.b", "a__b", "a---b", "A", "a_", "", "pause", strings.Repeat("x", 130)))
	}
	switch r.Intn(4) {
	case 0:
		b.WriteString(pick(":latest", ":1.27", ":LATEST", ":v1.0-rc.1", ":", ":-bad", ":"+strings.Repeat("t", 129), ":latest:x"))
	}
	if r.Intn(4) == 0 {
		b.WriteString(pick("@sha256:"+strings.Repeat("a", 64), "@sha256:"+strings.Repeat("A", 64), "@sha256:abc", "@sha384:"+strings.Repeat("b", 96),
			"@sha512:"+strings.Repeat("c", 128), "@md5:"+strings.Repeat("d", 32), "@sha256:"+strings.Repeat("a", 65), "@"))
	}
	if r.Intn(30) == 0 {
		return strings.Repeat("f", 64)
	}
	return b.String()
}

// TestImages compares the pull policy defaulting gives containers and image volumes.
func TestImages(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	n := sampleSize() / 2
	fails := 0
	for i := 0; i < n; i++ {
		image := randomImage(r)
		obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "spec": map[string]any{
			"containers": []any{map[string]any{"name": "c", "image": image}},
			"volumes":    []any{map[string]any{"name": "v", "image": map[string]any{"reference": image}}},
		}}
		want, werr := reference(gvk, obj)
		got, gerr := defaults.Builtin(gvk, obj, defaults.Options{})
		if werr != nil || gerr != nil {
			t.Fatalf("%q: %v %v", image, werr, gerr)
		}
		if js(want) != js(got) {
			fails++
			if fails <= 10 {
				t.Errorf("%q:\n%s", image, diff(js(want), js(got)))
			}
		}
	}
	t.Logf("%d images, %d disagreements", n, fails)
}
