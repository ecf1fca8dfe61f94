package registry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// Custom resources are stored in their CRD's storage version, as apiextensions-apiserver's
// storage codec stores them: a write converts the object it made (at the request's version) to
// the storage version before storing it, and every read (get, list, the live object of an
// update or patch, the write's own answer) converts the stored object to the request's version.
// Strategy None only rewrites apiVersion. Strategy Webhook sends the conversion webhook a
// ConversionReview for each conversion between different versions (the World's Converter),
// without resourceVersion, as the etcd store encodes and decodes objects; the object converted
// to storage is pruned by the storage version's schema, the one read back by the request
// version's (conversion.Converter.ToStorage and Read). The field manager converts the live
// object through the same converter for managers recorded at other versions.

// Conversions is what a World implements to convert the custom resources of a CRD whose
// conversion strategy is Webhook. A World without it converts every custom resource as strategy
// None does.
type Conversions interface {
	// CRDConverter returns the converter of crd (a CRD the World's CRD method returned), or nil
	// to convert its custom resources as strategy None does. An error is answered as the
	// conversion's failure.
	CRDConverter(ctx context.Context, crd *schema.CRD) (*conversion.Converter, error)
}

// crConverter is the webhook converter of the endpoint's CRD, nil for a built-in resource, a CRD
// of strategy None or a World without Conversions. It is looked up once per request.
func (h *handler) crConverter() (*conversion.Converter, error) {
	if h.ep == nil || h.ep.crd == nil {
		return nil, nil
	}
	if h.crConvDone {
		return h.crConv, h.crConvErr
	}
	h.crConvDone = true
	if cs, ok := h.w.(Conversions); ok {
		c, err := cs.CRDConverter(h.ctx, h.ep.crd)
		if err != nil {
			h.crConvErr = &conversion.Error{Err: err}
		} else if c != nil && c.CRD().Strategy == conversion.StrategyWebhook {
			h.crConv = c
		}
	}
	return h.crConv, h.crConvErr
}

// withoutResourceVersion runs convert on obj without metadata.resourceVersion (what etcd holds
// and what the webhook sees) and puts obj's resourceVersion back on the result.
func withoutResourceVersion(obj map[string]any, convert func(map[string]any) (map[string]any, error)) (map[string]any, error) {
	md, _ := obj["metadata"].(map[string]any)
	rv, hasRV := md["resourceVersion"]
	in := obj
	if hasRV {
		in = shallow(obj)
		m := shallow(md)
		delete(m, "resourceVersion")
		in["metadata"] = m
	}
	out, err := convert(in)
	if err != nil || !hasRV {
		return out, err
	}
	if om, ok := out["metadata"].(map[string]any); ok {
		om = shallow(om)
		om["resourceVersion"] = rv
		out = shallow(out)
		out["metadata"] = om
	}
	return out, nil
}

// crToStorage is obj (a custom resource of the endpoint's CRD, at any of its versions) in the
// storage version; a failure of the webhook is the apiserver's 500 (conversion.WriteError).
func (h *handler) crToStorage(obj map[string]any) (map[string]any, error) {
	sv := h.ep.crd.StorageVersion()
	if sv == nil {
		return obj, nil
	}
	storage := schema.GroupVersion{Group: h.ep.crd.Group, Version: sv.Name}
	if av, _ := obj["apiVersion"].(string); av == storage.String() || obj == nil {
		return obj, nil
	}
	c, err := h.crConverter()
	if err != nil {
		return nil, conversion.WriteError(err)
	}
	if c == nil {
		out := shallow(obj)
		out["apiVersion"] = storage.String()
		return out, nil
	}
	out, err := withoutResourceVersion(obj, c.ToStorage)
	if err != nil {
		return nil, conversion.WriteError(err)
	}
	return out, nil
}

// crFromStorage is a stored custom resource in the request's version: None rewrites apiVersion;
// Webhook converts it (conversion.Converter.Read). The error is the converter's, for the caller
// to answer as its storage call does.
func (h *handler) crFromStorage(stored map[string]any) (map[string]any, error) {
	want := h.ep.gvk.GroupVersion().String()
	c, err := h.crConverter()
	if err != nil {
		return nil, err
	}
	if c == nil {
		if av, _ := stored["apiVersion"].(string); av == want {
			return stored, nil
		}
		out := shallow(stored)
		out["apiVersion"] = want
		return out, nil
	}
	if av, _ := stored["apiVersion"].(string); av == want {
		return stored, nil
	}
	return withoutResourceVersion(stored, func(o map[string]any) (map[string]any, error) {
		return c.Read(o, h.ep.gvk.Version)
	})
}

// crStorageKey is the key the apiserver's storage errors quote: /<group>/<plural>/[<ns>/]<name>
// (with the /registry prefix for a list's).
func (h *handler) crStorageKey(obj map[string]any, prefix bool) string {
	k := "/" + h.ep.crd.Group + "/" + h.ep.crd.Names.Plural + "/"
	if ns := metaString(obj, "namespace"); ns != "" {
		k += ns + "/"
	}
	k += metaString(obj, "name")
	if prefix {
		k = "/registry" + k
	}
	return k
}

func storedRevision(obj map[string]any) int64 {
	n, _ := strconv.ParseInt(metaString(obj, "resourceVersion"), 10, 64)
	return n
}

// crReadError is the answer to a request whose stored object fails to convert: a get's is the
// storage decoder's corrupt-object InternalError; a write's (the object read before an update,
// a patch or a deletion) the decoder's own error, 500 without a reason (recorded:
// conversion/conv-webhook-fail).
func (h *handler) crReadError(stored map[string]any, err error) error {
	if strings.EqualFold(h.req.Method, "GET") {
		return conversion.ReadError(err, h.crStorageKey(stored, false), storedRevision(stored))
	}
	return conversion.WriteError(fmt.Errorf("object not decodable revision=%d: %w", storedRevision(stored), err))
}

// crStore converts the object a write made to the storage version and reads it back through the
// request's version, as the etcd store encodes it and decodes what it stored: stored is what
// the write stores, answer what the client gets (nil when reading back failed: answerErr, the
// 500 the apiserver answers after storing the object).
func (h *handler) crStore(obj map[string]any) (stored, answer map[string]any, answerErr, err error) {
	if stored, err = h.crToStorage(obj); err != nil {
		return nil, nil, nil, err
	}
	if c, _ := h.crConverter(); c == nil {
		// None: the answer is the object as the request's version holds it.
		return stored, obj, nil, nil
	}
	answer, rerr := h.crFromStorage(stored)
	if rerr != nil {
		return stored, nil, conversion.WriteError(rerr), nil
	}
	return stored, answer, nil, nil
}

// crFieldConverter is the field manager's converter of a CRD with a conversion webhook
// (fieldmanager's CRD version converter over the apiserver's CR converter): managers recorded at
// another version see the object as the webhook converts it; a version the CRD does not have is
// unknown (its managers are dropped).
func crFieldConverter(c *conversion.Converter) schema.Converter {
	crd := c.CRD()
	return schema.ConverterFunc(func(obj map[string]any, _, to schema.GroupVersionKind) (map[string]any, error) {
		if to.Group != crd.Schema.Group || crd.Schema.Version(to.Version) == nil {
			return nil, fmt.Errorf("%w: %s", apply.ErrVersionUnknown, to.APIVersion())
		}
		out, err := withoutResourceVersion(obj, func(o map[string]any) (map[string]any, error) { return c.Convert(o, to.Version) })
		if err != nil {
			var ce *conversion.Error
			if errors.As(err, &ce) {
				return nil, err
			}
			return nil, &conversion.Error{Err: err}
		}
		return out, nil
	})
}

// fieldManager is the endpoint's field manager configuration with the converter of a CRD whose
// strategy is Webhook.
func (h *handler) fieldManager(sub string) (apply.Request, error) {
	cfg, err := h.ep.fieldManagerConfig(sub)
	if err != nil {
		return cfg, err
	}
	if h.ep.crd != nil {
		c, err := h.crConverter()
		if err != nil {
			return cfg, conversion.WriteError(err)
		}
		if c != nil {
			cfg.Convert = crFieldConverter(c)
		}
	}
	return cfg, nil
}

// asConversionStatus is err as the answer to a write when the field manager's conversion failed.
func asConversionStatus(err error) error {
	var ce *conversion.Error
	if errors.As(err, &ce) {
		var se *status.Error
		if !errors.As(err, &se) {
			return conversion.WriteError(err)
		}
	}
	return err
}

// CustomResourceInVersion returns stored, a stored custom resource, in apiVersion as a read
// through that version returns it (a watch event of that version, for instance): converted by
// c, the converter of a CRD whose strategy is Webhook (Conversions), or with apiVersion
// rewritten when c is nil (strategy None). stored is not modified.
func CustomResourceInVersion(c *conversion.Converter, stored map[string]any, apiVersion string) (map[string]any, error) {
	if av, _ := stored["apiVersion"].(string); av == apiVersion {
		return stored, nil
	}
	if c == nil || c.CRD().Strategy != conversion.StrategyWebhook {
		out := shallow(stored)
		out["apiVersion"] = apiVersion
		return out, nil
	}
	gv, err := schema.ParseAPIVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return withoutResourceVersion(stored, func(o map[string]any) (map[string]any, error) { return c.Read(o, gv.Version) })
}
