package validation

import "github.com/writepath/writepath/field"

// ServiceClusterIPsRelatedFields is ValidateServiceClusterIPsRelatedFields: the checks of
// spec.clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy that the Service REST's allocator
// runs before it allocates (pkg/registry/core/service/storage/alloc.go initIPFamilyFields), on
// a Service and, for an update, the stored one (nil on create).
func ServiceClusterIPsRelatedFields(obj, old map[string]any) field.ErrorList {
	var o *service
	if old != nil {
		s := newService(old)
		o = &s
	}
	return clusterIPsRelatedFields(newService(obj), o)
}
