package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDocumentOrder: unknown fields are reported in the order their keys appear in the body
// (recorded: configmap/create-unknown-field-strict, deployment/create-unknown-nested-strict),
// paths the document does not hold last, in their order.
func TestDocumentOrder(t *testing.T) {
	doc := []byte(`{"metadata":{"name":"x","bogus":1},"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","imagePolicy":"x"}]}},"replica":3},"extra":{"x":[1,{"y":2}]}}`)
	got := documentOrder(doc, []string{"extra", "ghost", "spec.replica", "metadata.bogus", "spec.template.spec.containers[1].imagePolicy", "extra.x[1].y"})
	assert.Equal(t, []string{"metadata.bogus", "spec.template.spec.containers[1].imagePolicy", "spec.replica", "extra", "extra.x[1].y", "ghost"}, got)
	assert.Equal(t, []string{"b", "a"}, documentOrder([]byte(`not json`), []string{"b", "a"}), "an unreadable document keeps the order")
}
