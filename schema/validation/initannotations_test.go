package validation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// TestInitContainerAnnotationsDropped: the Pod strategy and the strategies holding a pod template
// drop the legacy init container annotations from the pod's metadata on create and update, and
// keep the object's own (recorded against kube-apiserver 1.37 with dry-run creates: a
// Deployment keeps them in its metadata and loses them in its template; a PodTemplate, a CronJob's
// job template and a Pod lose them). The input is not modified.
func TestInitContainerAnnotationsDropped(t *testing.T) {
	ann := func() map[string]any {
		return map[string]any{"pod.beta.kubernetes.io/init-containers": "[]", "pod.alpha.kubernetes.io/init-container-statuses": "[]", "keep": "1"}
	}
	kept := map[string]any{"keep": "1"}
	tmpl := func() map[string]any { return map[string]any{"metadata": map[string]any{"annotations": ann()}} }

	deploy := map[string]any{"metadata": map[string]any{"name": "d", "annotations": ann()}, "spec": map[string]any{"template": tmpl()}}
	got := validation.PrepareForCreate(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, deploy, validation.Options{})
	assert.Equal(t, ann(), got["metadata"].(map[string]any)["annotations"], "the Deployment's own annotations stay")
	assert.Equal(t, kept, got["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["annotations"])
	assert.Equal(t, ann(), deploy["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["annotations"], "input unchanged")

	cj := map[string]any{"spec": map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": tmpl()}}}}
	got = validation.PrepareForUpdate(schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}, cj, cj, validation.Options{})
	assert.Equal(t, kept, got["spec"].(map[string]any)["jobTemplate"].(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["annotations"])

	pt := map[string]any{"template": tmpl()}
	got = validation.PrepareForCreate(schema.GroupVersionKind{Version: "v1", Kind: "PodTemplate"}, pt, validation.Options{})
	assert.Equal(t, kept, got["template"].(map[string]any)["metadata"].(map[string]any)["annotations"])

	pod := map[string]any{"metadata": map[string]any{"annotations": ann()}, "spec": map[string]any{"containers": []any{}}}
	got = validation.PrepareForCreate(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, pod, validation.Options{})
	assert.Equal(t, kept, got["metadata"].(map[string]any)["annotations"])

	// A Deployment's /status keeps the stored spec: nothing to drop there.
	got = validation.PrepareForUpdate(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, deploy, deploy, validation.Options{Subresource: "status"})
	assert.Equal(t, ann(), got["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["annotations"])

	cm := map[string]any{"metadata": map[string]any{"annotations": ann()}}
	assert.Equal(t, ann(), validation.PrepareForCreate(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, cm, validation.Options{})["metadata"].(map[string]any)["annotations"])
}
