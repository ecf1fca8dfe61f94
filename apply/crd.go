package apply

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/schema"
)

// ConfigureCRD sets what a custom resource endpoint gives the field manager, for the version
// named by req.Kind (or, when empty, by req.Config's apiVersion): the SMD types of every version
// of crd, a converter between them that only rewrites apiVersion (what conversion strategy None
// does; set req.Convert afterwards for webhook conversion), the reset fields and value resets of
// the subresource (status only with a status subresource), and structural defaulting of the
// merged object.
func ConfigureCRD(req *Request, crd *schema.CRD, subresource string) error {
	gvk := req.Kind
	if gvk.Empty() {
		gvk = gvkOf(req.Config)
	}
	if gvk.Group != crd.Group || gvk.Kind != crd.Names.Kind {
		return fmt.Errorf("%v is not a kind of the CustomResourceDefinition %s", gvk, crd.Name)
	}
	v := crd.Version(gvk.Version)
	if v == nil || !v.Served {
		return fmt.Errorf("version %q of %s is not served", gvk.Version, crd.Name)
	}
	types := Types{}
	var versions []string
	for _, cv := range crd.Versions {
		pt, err := cv.SMDType()
		if err != nil {
			return err
		}
		types[cv.GVK()] = pt
		versions = append(versions, cv.GVK().GroupVersion().String())
	}
	req.Kind = gvk
	req.Types = types
	req.Convert = SameSchema(versions...)
	req.Subresource = subresource
	req.ResetFields = CustomResourceResetFields(gvk.GroupVersion().String(), subresource, v.Subresources.Status)
	req.ResetValues = CustomResourceResetPaths(subresource, v.Subresources.Status)
	if st := v.Structural; st != nil {
		req.Default = func(obj map[string]any) map[string]any {
			out, _ := schema.Default(obj, st).(map[string]any)
			return out
		}
	}
	return nil
}

// CRDScaleReplicasPaths returns, per apiVersion of crd, the specReplicasPath of its scale
// subresource (versions without one are left out).
func CRDScaleReplicasPaths(crd *schema.CRD) map[string][]string {
	out := map[string][]string{}
	for _, v := range crd.Versions {
		if v.Subresources.Scale == nil {
			continue
		}
		p := strings.Split(strings.TrimPrefix(v.Subresources.Scale.SpecReplicasPath, "."), ".")
		out[v.GVK().GroupVersion().String()] = p
	}
	return out
}
