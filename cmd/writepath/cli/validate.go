package cli

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

func runValidate(e *env, args []string) int {
	var o output
	f := e.flags("validate [--crd CRD [--old-crd STORED_CRD]] -f OBJECT [--old OLD [--subresource status]] [-n NAMESPACE] [--field-validation Strict|Warn|Ignore] [-o yaml|json]",
		`Validate an object as kube-apiserver 1.37 does on a create (or, with --old, an update): the
object is sent as a dry-run request (dryRun=All) through the request path, so it is decoded
(the typed round trip of a built-in kind; for a custom resource, pruned by its
CustomResourceDefinition), reported for unknown and duplicate fields as the field-validation
level asks (Warn by default, as the apiserver's default), defaulted, given its system fields
(generateName's name, uid, creationTimestamp, generation), and validated (ObjectMeta and the
kind's own rules; for a custom resource the OpenAPI schema, list sets and maps, embedded
resources, validation ratcheting on update, then the x-kubernetes-validations (CEL) rules).

Prints the object as the server would store it and the warnings ("Warning: ..."), or the
server's error (a 422 names the object's kind). Exit status 1 if the write would be refused.
A built-in object needs no --crd. Without --old the object is created in its namespace (or
default; a resourceVersion it carries is dropped); with --old it updates OLD (stored, a missing resourceVersion taken as "1"), carrying
OLD's resourceVersion when it has none itself.`,
		`  # Create: prune, default and validate
  writepath validate --crd testdata/examples/crontab-crd.yaml -f testdata/examples/crontab.yaml

  # A built-in object
  writepath validate -f testdata/examples/deployment.yaml

  # Update with ratcheting, unknown fields refused
  writepath validate --crd testdata/examples/crontab-crd.yaml -f testdata/examples/crontab-rescheduled.yaml --old testdata/examples/crontab.yaml --field-validation Strict`)
	var crdFiles fileList
	f.Var(&crdFiles, "crd", "custom resources: the CustomResourceDefinition `FILE` (apiextensions.k8s.io/v1; repeatable, a file may hold several: the one of the object's kind is used)")
	oldCRDFile := f.String("old-crd", "", "the stored CustomResourceDefinition `FILE`: check the CRD's rules as an update of it")
	var objFiles fileList
	f.Var(&objFiles, "f", "`FILE` with the object to write (- for stdin; a directory, several -f or a List must still hold one object)")
	oldFile := f.String("old", "", "`FILE` with the stored object: validate an update")
	nsFlag := f.namespace("the request `NAMESPACE` (default: the object's, else default); an object in another namespace is refused (kubectl's -n)")
	sub := f.String("subresource", "", "`SUBRESOURCE` written: status (needs --old); default the main resource")
	fv := f.fieldValidation(string(schema.FieldValidationWarn), "`LEVEL` for unknown and duplicate fields: Strict, Warn or Ignore (the query parameter as sent: another value is the apiserver's 422)", true)
	now := f.String("now", "", "`TIME` (RFC 3339) of the request: creationTimestamp (default: the current time)")
	uid := f.String("uid", "", "the `UID` a create gets (default: a random UUID)")
	f.Var(&o, "o", "output format: `yaml|json` (default yaml)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if len(objFiles) == 0 {
		return e.fail(usagef("-f FILE is required"))
	}
	if *sub != "" && (*sub != "status" || *oldFile == "") {
		return e.fail(usagef("--subresource: only status is supported, and it needs --old"))
	}
	crdDocs, err := e.readCRDs(crdFiles)
	if err != nil {
		return e.fail(err)
	}
	data, obj, err := e.readOneObject(objFiles)
	if err != nil {
		return e.fail(err)
	}
	crdDoc, err := crdFor(crdDocs, obj)
	if err != nil {
		return e.fail(err)
	}
	var crd *schema.CRD
	if crdDoc != nil {
		if crd, err = schema.FromCRD(crdDoc); err != nil {
			return e.fail(err)
		}
		var oldCRD *schema.CRD
		if *oldCRDFile != "" {
			oldDocs, err := e.readObjects([]string{*oldCRDFile})
			if err != nil {
				return e.fail(err)
			}
			if len(oldDocs) != 1 {
				return e.fail(usagef("--old-crd %s: want one CustomResourceDefinition, got %d documents", *oldCRDFile, len(oldDocs)))
			}
			if oldCRD, err = schema.FromCRD(oldDocs[0]); err != nil {
				return e.fail(err)
			}
		}
		// The apiserver refuses a CRD whose x-kubernetes-validations do not compile or cost too
		// much, with the same 422 as for its schema errors (on a CRD update, with the relaxations
		// for the stored CRD's expressions and unchanged schemas).
		if errs := cel.ValidateCRDUpdate(crd, oldCRD, cel.Options{}); len(errs) > 0 {
			return e.fail(status.Invalid(status.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, crd.Name, errs))
		}
	}
	av, _ := obj["apiVersion"].(string)
	builtin := isBuiltin(obj)
	if !builtin {
		if crd == nil {
			return e.fail(usagef("%s is not a built-in kind: give its CustomResourceDefinition with --crd FILE", av))
		}
		gv, err := schema.ParseAPIVersion(av)
		if err != nil || gv.Group != crd.Group || crd.Version(gv.Version) == nil {
			return e.fail(usagef("the object's apiVersion %q is not a version of %s", av, crd.Name))
		}
	}
	var old map[string]any
	if *oldFile != "" {
		oldDocs, err := e.readObjects([]string{*oldFile})
		if err != nil {
			return e.fail(err)
		}
		if len(oldDocs) != 1 {
			return e.fail(usagef("--old %s: want one object, got %d documents", *oldFile, len(oldDocs)))
		}
		old = oldDocs[0]
	}
	if f.namespaceGiven() {
		var crds []map[string]any
		if crdDoc != nil {
			crds = append(crds, crdDoc)
		}
		in, err := requireNamespace([]map[string]any{obj, old}, *nsFlag, true, namespacedBuiltinOr(crds, true))
		if err != nil {
			return e.fail(err)
		}
		// The object's body is sent as read: the request URL gives it the namespace.
		old = in[1]
	}
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	if ns == "" && f.namespaceGiven() && ((builtin && namespacedKind(obj)) || (!builtin && crd.Namespaced())) {
		ns = *nsFlag
	}
	if ns == "" && old != nil {
		omd, _ := old["metadata"].(map[string]any)
		ns, _ = omd["namespace"].(string)
	}
	if ns == "" && ((builtin && namespacedKind(obj)) || (!builtin && crd.Namespaced())) {
		ns = "default"
	}
	t, err := endpointOf(obj, crdDoc, ns, old != nil, *sub)
	if err != nil {
		return e.fail(err)
	}
	var world []map[string]any
	if crdDoc != nil && !builtin {
		world = append(world, crdDoc)
	}
	method := "POST"
	contentType := "application/yaml"
	if rv, _ := md["resourceVersion"].(string); rv != "" && old == nil {
		// An object copied from a server: validated as a create of its content (the apiserver
		// refuses a create carrying a resourceVersion with a 500).
		c := shallowObject(obj)
		cmd := map[string]any{}
		for k, v := range md {
			if k != "resourceVersion" {
				cmd[k] = v
			}
		}
		c["metadata"] = cmd
		if data, err = codec.EncodeJSON(c); err != nil {
			return e.fail(&inputError{err: err})
		}
		contentType = "application/json"
	}
	if old != nil {
		method = "PUT"
		st, err := stored(old, t.Namespace)
		if err != nil {
			return e.fail(err)
		}
		world = append(world, st)
		if rv, _ := md["resourceVersion"].(string); rv == "" {
			// An edit of the stored object carries its resourceVersion.
			c := shallowObject(obj)
			cmd := map[string]any{}
			for k, v := range md {
				cmd[k] = v
			}
			cmd["resourceVersion"] = st["metadata"].(map[string]any)["resourceVersion"]
			c["metadata"] = cmd
			if data, err = codec.EncodeJSON(c); err != nil {
				return e.fail(&inputError{err: err})
			}
			contentType = "application/json"
		}
	}
	reqTime, err := requestTime(*now)
	if err != nil {
		return e.fail(err)
	}
	newUID := randomUID
	if *uid != "" {
		newUID = func() string { return *uid }
	}
	w, err := newCLIWorld(world, newUID)
	if err != nil {
		return e.fail(err)
	}
	resp, err := e.send(w, method, t, url.Values{"dryRun": {"All"}, "fieldValidation": {*fv}}, contentType, data, reqTime)
	if err != nil {
		return e.fail(err)
	}
	if err := responseError(resp); err != nil {
		return e.fail(err)
	}
	if err := e.printValue(o, withoutManagedFields(resp.Object)); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// readOneObject reads validate's -f: one object, whose bytes are sent as read (so that the
// request path sees its duplicate fields) when it is the one document of one file; an object
// from a List, a directory or several files is sent re-encoded.
func (e *env) readOneObject(files []string) ([]byte, map[string]any, error) {
	paths, err := e.expandPaths(files)
	if err != nil {
		return nil, nil, err
	}
	name := strings.Join(files, ",")
	var obj map[string]any
	if len(paths) == 1 {
		data, err := e.readInput(paths[0])
		if err != nil {
			return nil, nil, &inputError{err: err}
		}
		docs, err := codec.Options{AllowDuplicates: true}.DecodeStream(data)
		if err != nil {
			return nil, nil, &inputError{err: err}
		}
		if len(docs) != 1 {
			return nil, nil, usagef("-f %s: want one object, got %d documents", name, len(docs))
		}
		var ok bool
		if obj, ok = docs[0].Value.(map[string]any); !ok {
			return nil, nil, &inputError{err: fmt.Errorf("-f %s: not an object", name)}
		}
		if _, isList := obj["items"]; !isList {
			return data, obj, nil
		}
	}
	var objs []map[string]any
	if len(paths) == 1 {
		objs, err = codec.FlattenLists([]map[string]any{obj})
		err = wrapInput(err)
	} else {
		objs, err = e.readObjects(files)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(objs) != 1 {
		return nil, nil, usagef("-f %s: want one object, got %d", name, len(objs))
	}
	data, err := codec.EncodeJSON(objs[0])
	if err != nil {
		return nil, nil, &inputError{err: err}
	}
	return data, objs[0], nil
}

// wrapInput makes a decoding error unreadable input (exit 2).
func wrapInput(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err: err}
}

func shallowObject(obj map[string]any) map[string]any {
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	return c
}
