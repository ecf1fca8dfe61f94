package patch

import (
	"fmt"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/writepath/writepath/status"
)

// ApplyRFC6902 applies patchJSON to the JSON document doc (any JSON value) with
// github.com/evanphx/json-patch/v5 configured through its ApplyOptions (never
// its package globals) to be as close to RFC 6902 as that library gets:
// operations are validated when decoded (a missing "value" is an error),
// negative indices are refused, "replace" and "copy" need their locations, the
// whole document can be replaced or added, with the copy limit of opts. v5
// still accepts zero-padded indices. It is for clients that want the standard
// rather than kube-apiserver's behaviour (use ApplyJSONPatch for that). Errors are
// *Error with a 400 for an undecodable patch and 422 for one that does not
// apply. doc and patchJSON are not modified.
func ApplyRFC6902(doc, patchJSON []byte, opts Options) ([]byte, error) {
	p, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		return nil, fail(status.BadRequest(err.Error()), err)
	}
	if max := opts.maxOps(); max > 0 && len(p) > max {
		return nil, fail(status.RequestEntityTooLarge(fmt.Sprintf(
			"The allowed maximum operations in a JSON patch is %d, got %d", max, len(p))), nil)
	}
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = false
	o.AccumulatedCopySizeLimit = max(opts.maxCopy(), 0)
	o.AllowMissingPathOnRemove = false
	o.EnsurePathExistsOnAdd = false
	o.EscapeHTML = false
	out, err := p.ApplyWithOptions(doc, o)
	if err != nil {
		return nil, fail(status.GenericServerResponse(http.StatusUnprocessableEntity, "", status.GroupResource{}, "", err.Error(), 0, false), err)
	}
	return out, nil
}
