package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// Field selectors (the fieldSelector of list and watch): which field labels each kind accepts,
// what it renames, and the values an object has for them. Reference: the field label conversion
// funcs of k8s.io/kubernetes v1.37.2 pkg/apis/*/v1*/conversion.go (labels a request may name)
// and the registries' ToSelectableFields / GetAttrs (the values they are matched against);
// apiextensions-apiserver's crConverter.ConvertFieldLabel and selectableFields for custom
// resources.

// fieldLabels is one kind's conversion: the labels it accepts, renamed labels, and the error
// format for any other ("%s" is the label).
type fieldLabels struct {
	accept []string
	rename map[string]string
	errFmt string
}

const fieldLabelNotSupported = "field label not supported: %s"

var builtinFieldLabels = map[string]fieldLabels{
	"/Pod": {accept: []string{"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
		"spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
		"status.podIPs", "status.nominatedNodeName"}, rename: map[string]string{"spec.host": "spec.nodeName"}},
	"/Node":                  {accept: []string{"metadata.name", "spec.unschedulable"}},
	"/ReplicationController": {accept: []string{"metadata.name", "metadata.namespace", "status.replicas"}},
	"/Event": {accept: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
		"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "source", "type", "metadata.namespace", "metadata.name"}},
	"/Namespace": {accept: []string{"status.phase", "metadata.name"}},
	"/Secret":    {accept: []string{"type", "metadata.namespace", "metadata.name"}},
	"/Service":   {accept: []string{"metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"}},
	"events.k8s.io/Event": {accept: []string{"reason", "type", "metadata.namespace", "metadata.name"},
		rename: map[string]string{"regarding.kind": "involvedObject.kind", "regarding.namespace": "involvedObject.namespace",
			"regarding.name": "involvedObject.name", "regarding.uid": "involvedObject.uid",
			"regarding.apiVersion": "involvedObject.apiVersion", "regarding.resourceVersion": "involvedObject.resourceVersion",
			"regarding.fieldPath": "involvedObject.fieldPath", "reportingController": "reportingComponent"}},
	"batch/Job": {accept: []string{"metadata.name", "metadata.namespace", "status.successful"}},
	"certificates.k8s.io/CertificateSigningRequest": {accept: []string{"metadata.name", "spec.signerName"}},
	"certificates.k8s.io/ClusterTrustBundle":        {accept: []string{"metadata.name", "spec.signerName"}},
	"certificates.k8s.io/PodCertificateRequest": {accept: []string{"metadata.name", "spec.signerName",
		"spec.podName", "spec.nodeName"}},
	"resource.k8s.io/ResourceSlice": {accept: []string{"metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name"},
		errFmt: "field label not supported for resource.k8s.io/%s, Kind=ResourceSlice: %s"},
}

// ConvertFieldLabel is the apiserver's field label conversion for a built-in kind: the label a
// selector term names, as the kind's registry matches it, or the error the apiserver answers
// (400) for a label the kind does not support. Kinds without a conversion of their own accept
// metadata.name and metadata.namespace.
func ConvertFieldLabel(gvk GroupVersionKind, label string) (string, error) {
	fl, ok := builtinFieldLabels[gvk.Group+"/"+gvk.Kind]
	if !ok {
		if label == "metadata.name" || label == "metadata.namespace" {
			return label, nil
		}
		return "", fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
	}
	for _, l := range fl.accept {
		if l == label {
			return label, nil
		}
	}
	if to, ok := fl.rename[label]; ok {
		return to, nil
	}
	if fl.errFmt != "" {
		return "", fmt.Errorf(fl.errFmt, gvk.Version, label)
	}
	return "", fmt.Errorf(fieldLabelNotSupported, label)
}

// ConvertCRDFieldLabel is ConvertFieldLabel for a custom resource of crd at version.
func ConvertCRDFieldLabel(crd *CRD, version, label string) (string, error) {
	switch {
	case label == "metadata.name":
		return label, nil
	case crd.Namespaced() && label == "metadata.namespace":
		return label, nil
	}
	for _, v := range crd.Versions {
		if v.Name != version {
			continue
		}
		for _, p := range v.SelectableFields {
			if strings.TrimPrefix(p, ".") == label {
				return label, nil
			}
		}
	}
	return "", fmt.Errorf(fieldLabelNotSupported, label)
}

// SelectableFields returns the fields a stored built-in object (in its storage version) is
// matched against: metadata.name, metadata.namespace for namespaced kinds, and the kind's own.
func SelectableFields(gvk GroupVersionKind, namespaced bool, obj map[string]any) map[string]string {
	set := map[string]string{"metadata.name": selString(obj, "metadata", "name")}
	if namespaced {
		set["metadata.namespace"] = selString(obj, "metadata", "namespace")
	}
	switch gvk.Group + "/" + gvk.Kind {
	case "/Pod":
		for _, p := range []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
			"status.phase", "status.nominatedNodeName"} {
			set[p] = selString(obj, strings.Split(p, ".")...)
		}
		set["spec.hostNetwork"] = strconv.FormatBool(selValue(obj, "spec", "hostNetwork") == true)
		ip := selString(obj, "status", "podIP")
		if ips, ok := selValue(obj, "status", "podIPs").([]any); ok && len(ips) > 0 {
			if m, ok := ips[0].(map[string]any); ok {
				ip, _ = m["ip"].(string)
			}
		}
		set["status.podIP"] = ip
	case "/Node":
		set["spec.unschedulable"] = strconv.FormatBool(selValue(obj, "spec", "unschedulable") == true)
	case "/ReplicationController", "apps/ReplicaSet":
		set["status.replicas"] = selInt(obj, "status", "replicas")
	case "/Event", "events.k8s.io/Event":
		ref := "involvedObject"
		if _, ok := obj["regarding"]; ok {
			ref = "regarding"
		}
		for _, f := range []string{"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"} {
			set["involvedObject."+f] = selString(obj, ref, f)
		}
		set["reason"] = selString(obj, "reason")
		set["type"] = selString(obj, "type")
		reporting := selString(obj, "reportingComponent")
		if reporting == "" {
			reporting = selString(obj, "reportingController")
		}
		set["reportingComponent"] = reporting
		source := selString(obj, "source", "component")
		if source == "" {
			source = selString(obj, "deprecatedSource", "component")
		}
		if source == "" {
			source = reporting
		}
		set["source"] = source
	case "/Namespace":
		set["status.phase"] = selString(obj, "status", "phase")
	case "/Secret":
		set["type"] = selString(obj, "type")
	case "/Service":
		set["spec.clusterIP"] = selString(obj, "spec", "clusterIP")
		set["spec.type"] = selString(obj, "spec", "type")
	case "batch/Job":
		set["status.successful"] = selInt(obj, "status", "succeeded")
	case "certificates.k8s.io/CertificateSigningRequest", "certificates.k8s.io/ClusterTrustBundle":
		set["spec.signerName"] = selString(obj, "spec", "signerName")
	case "certificates.k8s.io/PodCertificateRequest":
		for _, f := range []string{"signerName", "podName", "nodeName"} {
			set["spec."+f] = selString(obj, "spec", f)
		}
	case "resource.k8s.io/ResourceSlice":
		set["spec.nodeName"] = selString(obj, "spec", "nodeName")
		set["spec.driver"] = selString(obj, "spec", "driver")
		set["spec.pool.name"] = selString(obj, "spec", "pool", "name")
	}
	return set
}

// CRDSelectableFields is SelectableFields for a custom resource served at version: the values
// of the version's selectableFields (fmt.Sprint of a scalar, "" when missing).
func CRDSelectableFields(crd *CRD, version string, obj map[string]any) map[string]string {
	set := map[string]string{"metadata.name": selString(obj, "metadata", "name")}
	if crd.Namespaced() {
		set["metadata.namespace"] = selString(obj, "metadata", "namespace")
	}
	for _, v := range crd.Versions {
		if v.Name != version {
			continue
		}
		for _, p := range v.SelectableFields {
			name := strings.TrimPrefix(p, ".")
			val := selValue(obj, strings.Split(name, ".")...)
			if val == nil {
				set[name] = ""
			} else {
				set[name] = fmt.Sprint(val)
			}
		}
	}
	return set
}

func selValue(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func selString(obj map[string]any, path ...string) string {
	s, _ := selValue(obj, path...).(string)
	return s
}

func selInt(obj map[string]any, path ...string) string {
	switch n := selValue(obj, path...).(type) {
	case int64:
		return strconv.FormatInt(n, 10)
	case float64:
		return strconv.FormatInt(int64(n), 10)
	}
	return "0"
}
