package conversion

import (
	"context"
	"fmt"
	"net/http"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// Spoke converts one version of a CRD to and from the hub version. The functions get a copy
// of the object (they may modify it) and return the converted object; apiVersion is set by the
// Registry, so they handle fields only. Metadata changes other than labels and annotations are
// discarded, as the apiserver discards them from a webhook's answer.
type Spoke struct {
	ToHub   func(obj map[string]any) (map[string]any, error)
	FromHub func(hub map[string]any) (map[string]any, error)
}

// Registry is an in-process conversion webhook built from hub-and-spoke converters (the
// controller-runtime model: every version converts to and from one hub, so n versions need 2n
// functions, not n²). It is a Caller: a Converter with a Registry as its Caller runs the
// apiserver's whole webhook protocol (ConversionReview request, response validation, metadata
// restoration) without a server. Register every spoke before use; then it is safe for
// concurrent use if the spoke functions are.
type Registry struct {
	hub    string
	spokes map[string]Spoke
}

// NewRegistry returns a registry whose hub is version hub (objects at the hub need no function).
func NewRegistry(hub string) *Registry {
	return &Registry{hub: hub, spokes: map[string]Spoke{}}
}

// Register adds the converters of version. Registering the hub or a version twice is an error.
func (r *Registry) Register(version string, s Spoke) error {
	if version == r.hub {
		return fmt.Errorf("version %q is the hub: it needs no converter", version)
	}
	if _, ok := r.spokes[version]; ok {
		return fmt.Errorf("version %q is already registered", version)
	}
	if s.ToHub == nil || s.FromHub == nil {
		return fmt.Errorf("version %q: both ToHub and FromHub are needed", version)
	}
	r.spokes[version] = s
	return nil
}

// ConvertObject converts obj (at the version of its apiVersion) to desiredAPIVersion through
// the hub. obj is not modified.
func (r *Registry) ConvertObject(obj map[string]any, desiredAPIVersion string) (map[string]any, error) {
	cur, err := value.DeepCopyMap(obj)
	if err != nil {
		return nil, err
	}
	from := gvkOf(cur).GroupVersion()
	to, err := schema.ParseAPIVersion(desiredAPIVersion)
	if err != nil {
		return nil, err
	}
	if from.Group != to.Group {
		return nil, fmt.Errorf("cannot convert %s to %s: different groups", from, to)
	}
	if from.Version == to.Version {
		return cur, nil
	}
	if from.Version != r.hub {
		s, ok := r.spokes[from.Version]
		if !ok {
			return nil, fmt.Errorf("no converter registered for version %q", from.Version)
		}
		if cur, err = s.ToHub(cur); err != nil {
			return nil, fmt.Errorf("converting %s to hub %s: %w", from.Version, r.hub, err)
		}
		if cur == nil {
			return nil, fmt.Errorf("converting %s to hub %s: no object returned", from.Version, r.hub)
		}
		cur["apiVersion"] = schema.GroupVersion{Group: to.Group, Version: r.hub}.String()
	}
	if to.Version != r.hub {
		s, ok := r.spokes[to.Version]
		if !ok {
			return nil, fmt.Errorf("no converter registered for version %q", to.Version)
		}
		if cur, err = s.FromHub(cur); err != nil {
			return nil, fmt.Errorf("converting hub %s to %s: %w", r.hub, to.Version, err)
		}
		if cur == nil {
			return nil, fmt.Errorf("converting hub %s to %s: no object returned", r.hub, to.Version)
		}
	}
	cur["apiVersion"] = to.String()
	return cur, nil
}

// Call answers a ConversionReview as a webhook built on the registry would: every object
// converted, or a Failure result naming the first error.
func (r *Registry) Call(_ context.Context, body []byte) (*Response, error) {
	review, err := ParseReview(body)
	if err != nil {
		return &Response{StatusCode: http.StatusBadRequest, ContentType: "text/plain", Body: []byte(err.Error())}, nil
	}
	var out []map[string]any
	var cerr error
	for _, o := range review.Objects {
		c, err := r.ConvertObject(o, review.DesiredAPIVersion)
		if err != nil {
			cerr = err
			break
		}
		out = append(out, c)
	}
	b, err := review.ResponseBody(out, cerr)
	if err != nil {
		return nil, err
	}
	return &Response{StatusCode: http.StatusOK, ContentType: "application/json", Body: b}, nil
}
