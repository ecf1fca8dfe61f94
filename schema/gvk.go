package schema

import (
	"fmt"
	"strings"
)

// GroupVersion names an API group and version, such as {Group: "apps", Version: "v1"}. The core
// group is the empty string. The zero value is the empty group version ("").
type GroupVersion struct {
	Group   string
	Version string
}

// ParseAPIVersion splits an apiVersion field value ("v1", "apps/v1") into its group and version,
// like apimachinery's schema.ParseGroupVersion: "" and "/" give the zero GroupVersion, a string
// with more than one slash is an error.
func ParseAPIVersion(apiVersion string) (GroupVersion, error) {
	if apiVersion == "" || apiVersion == "/" {
		return GroupVersion{}, nil
	}
	switch strings.Count(apiVersion, "/") {
	case 0:
		return GroupVersion{Version: apiVersion}, nil
	case 1:
		i := strings.IndexByte(apiVersion, '/')
		return GroupVersion{Group: apiVersion[:i], Version: apiVersion[i+1:]}, nil
	default:
		return GroupVersion{}, fmt.Errorf("unexpected GroupVersion string: %v", apiVersion)
	}
}

// String returns the apiVersion form: "v1" for the core group, "apps/v1" otherwise, "" when empty.
func (gv GroupVersion) String() string {
	if gv.Group != "" {
		return gv.Group + "/" + gv.Version
	}
	return gv.Version
}

// Empty reports whether gv is the zero value.
func (gv GroupVersion) Empty() bool { return gv == GroupVersion{} }

// WithKind returns the GroupVersionKind of kind in gv.
func (gv GroupVersion) WithKind(kind string) GroupVersionKind {
	return GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
}

// WithResource returns the GroupVersionResource of resource in gv.
func (gv GroupVersion) WithResource(resource string) GroupVersionResource {
	return GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: resource}
}

// GroupVersionKind names a kind in an API group version, such as apps/v1 Deployment. The zero value
// is the empty GVK, which names no kind.
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// FromAPIVersionAndKind builds the GroupVersionKind of an object's apiVersion and kind fields.
func FromAPIVersionAndKind(apiVersion, kind string) (GroupVersionKind, error) {
	gv, err := ParseAPIVersion(apiVersion)
	if err != nil {
		return GroupVersionKind{}, err
	}
	return gv.WithKind(kind), nil
}

// GroupVersion returns the group and version of gvk.
func (gvk GroupVersionKind) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvk.Group, Version: gvk.Version}
}

// APIVersion returns the apiVersion field value of gvk ("v1", "apps/v1").
func (gvk GroupVersionKind) APIVersion() string { return gvk.GroupVersion().String() }

// Empty reports whether gvk is the zero value.
func (gvk GroupVersionKind) Empty() bool { return gvk == GroupVersionKind{} }

// String prints gvk the way apimachinery does in error messages: "apps/v1, Kind=Deployment",
// "/v1, Kind=Pod" for the core group.
func (gvk GroupVersionKind) String() string {
	return gvk.Group + "/" + gvk.Version + ", Kind=" + gvk.Kind
}

// GroupVersionResource names a resource (the plural, lower-case URL segment) in an API group
// version, such as apps/v1 deployments. The zero value is the empty GVR.
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// GroupVersion returns the group and version of gvr.
func (gvr GroupVersionResource) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvr.Group, Version: gvr.Version}
}

// Empty reports whether gvr is the zero value.
func (gvr GroupVersionResource) Empty() bool { return gvr == GroupVersionResource{} }

// String prints gvr the way apimachinery does: "apps/v1, Resource=deployments".
func (gvr GroupVersionResource) String() string {
	return gvr.Group + "/" + gvr.Version + ", Resource=" + gvr.Resource
}
