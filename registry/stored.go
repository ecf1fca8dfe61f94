package registry

import (
	"github.com/writepath/writepath/internal/value"
)

// Stored returns resp as the client receives it once the request's writes are stored: every
// resourceVersion Handle took from World.NextResourceVersion is replaced by the one storage gave
// the write, as revisions maps them (promised -> stored), and the body is encoded again in the
// request's media type. A storage whose revisions come from its commit (etcd's mod revision)
// cannot promise one beforehand; the caller stores the writes, then answers with Stored. When
// every promise held (a serialised store), resp is returned as it is, byte for byte.
//
// The promised resourceVersions are replaced where a response carries the written objects'
// resourceVersion: the object's (or Scale's) metadata and a list's items'. A promise must differ
// from every resourceVersion the request read (World.NextResourceVersion's duty), so that no
// other object's is taken for it. resp is not modified.
func Stored(req Request, resp Response, revisions map[string]string) (Response, error) {
	if resp.Object == nil || !changesResourceVersions(resp.Object, revisions) {
		return resp, nil
	}
	obj, err := value.DeepCopyMap(resp.Object)
	if err != nil {
		return Response{}, err
	}
	replaceResourceVersion(obj, revisions)
	if items, ok := obj["items"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				replaceResourceVersion(m, revisions)
			}
		}
	}
	h := &handler{req: req}
	out, err := h.respond(resp.Code, obj)
	if err != nil {
		return Response{}, err
	}
	out.Warnings = resp.Warnings
	out.Reset = resp.Reset
	return out, nil
}

func changesResourceVersions(obj map[string]any, revisions map[string]string) bool {
	changes := func(m map[string]any) bool {
		rv := metaString(m, "resourceVersion")
		stored, ok := revisions[rv]
		return ok && stored != rv
	}
	if changes(obj) {
		return true
	}
	items, _ := obj["items"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && changes(m) {
			return true
		}
	}
	return false
}

func replaceResourceVersion(obj map[string]any, revisions map[string]string) {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	rv, _ := meta["resourceVersion"].(string)
	if stored, ok := revisions[rv]; ok {
		meta["resourceVersion"] = stored
	}
}
