package cli

import (
	"fmt"
	"strings"
)

// crdUsage is the help of every verb's --crd, after what the verb uses the CRD for.
const crdUsage = " (repeatable; a file may hold several, and CRDs among the -f objects count too)"

// readCRDs reads the --crd files: each may hold several CustomResourceDefinitions (multi-document
// YAML, or a List). Among several, a document of another kind is refused; a single one is left
// to the verb, which reports it as the apiserver reads a CRD (as before --crd was repeatable).
func (e *env) readCRDs(files []string) ([]map[string]any, error) {
	if len(files) == 0 {
		return nil, nil
	}
	docs, err := e.readObjects(files)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if len(docs) > 1 && d["kind"] != "CustomResourceDefinition" {
			kind, _ := d["kind"].(string)
			return nil, usagef("--crd %s: want CustomResourceDefinitions, found a %q", strings.Join(files, ","), kind)
		}
	}
	return docs, nil
}

// takeCRDs moves the CustomResourceDefinitions among objs that define the kind of another of
// objs into crds, as kubectl reads a directory holding a CRD and its custom resources: the other
// objects, in order, and crds with them. A CRD that no object of objs is an instance of stays an
// object (a verb may be asked about the CRD itself).
func takeCRDs(objs, crds []map[string]any) (rest, all []map[string]any) {
	all = crds
	for i, o := range objs {
		if o["kind"] != "CustomResourceDefinition" || !defines(o, objs, i) {
			rest = append(rest, o)
			continue
		}
		all = append(all, o)
	}
	return rest, all
}

// defines reports whether crd defines the group and kind of an object of objs other than the
// one at skip.
func defines(crd map[string]any, objs []map[string]any, skip int) bool {
	for j, o := range objs {
		if j == skip {
			continue
		}
		gvk, _, err := kindOf(o)
		if err == nil && crdOfKind([]map[string]any{crd}, gvk.Group, gvk.Kind) != nil {
			return true
		}
	}
	return false
}

// crdFor is the CustomResourceDefinition of crds for obj: the one that defines obj's group and
// kind; with a single CRD given, that one whatever it defines (the verb reports a mismatch in its
// words, as before --crd was repeatable); nil when crds is empty. Several CRDs and none for obj's
// kind is bad usage.
func crdFor(crds []map[string]any, obj map[string]any) (map[string]any, error) {
	if len(crds) == 0 {
		return nil, nil
	}
	gvk, _, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	if crd := crdOfKind(crds, gvk.Group, gvk.Kind); crd != nil {
		return crd, nil
	}
	if len(crds) == 1 {
		return crds[0], nil
	}
	if isBuiltin(obj) {
		return nil, nil
	}
	return nil, usagef("no CustomResourceDefinition among the %d given (--crd, -f) defines %s in group %q", len(crds), gvk.Kind, gvk.Group)
}

// crdList names the CRDs for messages: group/kind of each.
func crdList(crds []map[string]any) string {
	var names []string
	for _, c := range crds {
		spec, _ := c["spec"].(map[string]any)
		n, _ := spec["names"].(map[string]any)
		names = append(names, fmt.Sprintf("%v.%v", n["plural"], spec["group"]))
	}
	return strings.Join(names, ", ")
}
