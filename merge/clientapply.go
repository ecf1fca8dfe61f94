package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	kjson "sigs.k8s.io/json"
)

// LastAppliedAnnotation is the annotation in which kubectl's client-side
// apply keeps the configuration it last applied.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// Content types of the patches client-side apply sends.
const (
	PatchTypeStrategic = "application/strategic-merge-patch+json"
	PatchTypeMerge     = "application/merge-patch+json"
)

// ClientApplyOptions configure ClientSideApply.
type ClientApplyOptions struct {
	// Meta is the kind's strategic-merge-patch metadata (KindMeta); nil for a
	// kind without it (custom resources), which kubectl patches with a JSON
	// merge patch.
	Meta Meta
	// NoOverwrite is kubectl apply --overwrite=false: a change to a field that
	// was also changed in the live object since the last apply is a conflict
	// (strategic merge patch only, as in kubectl).
	NoOverwrite bool
	// Options apply to the patch the server then applies.
	Options Options
}

// ClientApplyResult is what kubectl apply (without --server-side) does.
type ClientApplyResult struct {
	// Created is true when there was no live object: kubectl creates the
	// configuration with the annotation.
	Created bool
	// PatchType and Patch are the PATCH kubectl sends; Patch is "{}" (and
	// nothing is sent) when there is nothing to change, nil on creation.
	PatchType string
	Patch     []byte
	// Object is the object after the create or the patch (as the patch
	// computes it: defaulting, validation and admission are not applied).
	Object map[string]any
}

// LastAppliedConfiguration returns the annotation value kubectl writes for
// config: the configuration without its own last-applied annotation (with
// "annotations": {} when it had none, as kubectl's accessor leaves it),
// encoded by encoding/json's Encoder (sorted keys, HTML escaping, a final
// newline). config is not modified.
func LastAppliedConfiguration(config map[string]any) (string, error) {
	withoutAnnotation, _, err := withAnnotation(config, nil)
	if err != nil {
		return "", err
	}
	b, err := encodeLikeKubectl(withoutAnnotation)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ModifiedConfiguration is kubectl's GetModifiedConfiguration(config, true):
// config with the last-applied annotation set to LastAppliedConfiguration,
// as encoded bytes.
func ModifiedConfiguration(config map[string]any) ([]byte, error) {
	last, err := LastAppliedConfiguration(config)
	if err != nil {
		return nil, err
	}
	annotated, _, err := withAnnotation(config, &last)
	if err != nil {
		return nil, err
	}
	return encodeLikeKubectl(annotated)
}

// ClientSideApply computes kubectl apply without --server-side, as kubectl
// 1.37 does (k8s.io/kubectl pkg/cmd/apply): with no live object (live nil) it
// creates config with the last-applied annotation; otherwise it computes the
// three-way patch from the live object's last-applied annotation (original),
// the annotated configuration (modified) and the live object (current) —
// a strategic merge patch when opts.Meta is set (CreateThreeWayStrategic,
// overwrite unless NoOverwrite), else a JSON merge patch
// (CreateThreeWayMergePatch with kubectl's preconditions on apiVersion, kind
// and metadata.name) — and applies it to the live object as the server would.
// Errors of patch creation carry kubectl's "creating patch with: ..." text.
// Arguments are not modified.
func ClientSideApply(config, live map[string]any, opts ClientApplyOptions) (ClientApplyResult, error) {
	if config == nil {
		return ClientApplyResult{}, errors.New("no configuration to apply")
	}
	if live == nil {
		last, err := LastAppliedConfiguration(config)
		if err != nil {
			return ClientApplyResult{}, err
		}
		obj, _, err := withAnnotation(config, &last)
		if err != nil {
			return ClientApplyResult{}, err
		}
		return ClientApplyResult{Created: true, Object: obj}, nil
	}
	modifiedJSON, err := ModifiedConfiguration(config)
	if err != nil {
		return ClientApplyResult{}, err
	}
	currentJSON, err := encodeLikeKubectl(live)
	if err != nil {
		return ClientApplyResult{}, err
	}
	var originalJSON []byte
	if md, ok := live["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if s, ok := ann[LastAppliedAnnotation].(string); ok {
				originalJSON = []byte(s)
			}
		}
	}
	wrap := func(err error) error {
		return &CreatePatchError{Original: originalJSON, Modified: modifiedJSON, Current: currentJSON, Err: err}
	}
	modified, err := decodeObjectK8s(modifiedJSON)
	if err != nil {
		return ClientApplyResult{}, err
	}
	current, err := decodeObjectK8s(currentJSON)
	if err != nil {
		return ClientApplyResult{}, err
	}
	var original map[string]any
	if len(originalJSON) > 0 {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(originalJSON, &original); err != nil {
			if opts.Meta != nil {
				return ClientApplyResult{}, wrap(ErrBadJSONDoc)
			}
			return ClientApplyResult{}, wrap(errInvalidJSONDocumentV4)
		}
	}
	res := ClientApplyResult{}
	if opts.Meta != nil {
		res.PatchType = PatchTypeStrategic
		res.Patch, err = CreateThreeWayStrategic(original, modified, current, opts.Meta, !opts.NoOverwrite)
	} else {
		res.PatchType = PatchTypeMerge
		res.Patch, err = CreateThreeWayMergePatch(original, modified, current,
			RequireKeyUnchanged("apiVersion"), RequireKeyUnchanged("kind"), RequireMetadataKeyUnchanged("name"))
	}
	if err != nil {
		return ClientApplyResult{}, wrap(err)
	}
	if string(res.Patch) == "{}" {
		res.Object, err = copyObject(live)
		return res, err
	}
	var applied Result
	if opts.Meta != nil {
		applied, err = ApplyStrategic(live, res.Patch, opts.Meta, opts.Options)
	} else {
		applied, err = ApplyMergePatch(live, res.Patch, opts.Options)
	}
	if err != nil {
		return ClientApplyResult{}, err
	}
	res.Object = applied.Object
	return res, nil
}

// errInvalidJSONDocumentV4 is json-patch v4's ErrBadJSONDoc, what
// jsonmergepatch returns for an undecodable last-applied annotation.
var errInvalidJSONDocumentV4 = errors.New("Invalid JSON Document")

// CreatePatchError is kubectl's error when the patch cannot be computed.
type CreatePatchError struct {
	Original, Modified, Current []byte
	Err                         error
}

func (e *CreatePatchError) Error() string {
	return fmt.Sprintf("creating patch with:\noriginal:\n%s\nmodified:\n%s\ncurrent:\n%s\nfor: %v", e.Original, e.Modified, e.Current, e.Err)
}

func (e *CreatePatchError) Unwrap() error { return e.Err }

// withAnnotation returns a copy of obj whose last-applied annotation is set to
// *value, or removed when value is nil; like kubectl's accessor it always
// leaves a metadata.annotations map (possibly empty). It also returns the
// previous value.
func withAnnotation(obj map[string]any, value *string) (map[string]any, string, error) {
	out, err := copyObject(obj)
	if err != nil {
		return nil, "", err
	}
	if out == nil {
		out = map[string]any{}
	}
	md, ok := out["metadata"].(map[string]any)
	if !ok {
		if out["metadata"] != nil {
			return nil, "", fmt.Errorf(".metadata accessor error: %v is of the type %T, expected map[string]interface{}", out["metadata"], out["metadata"])
		}
		md = map[string]any{}
		out["metadata"] = md
	}
	ann, ok := md["annotations"].(map[string]any)
	if !ok {
		if md["annotations"] != nil {
			return nil, "", fmt.Errorf(".metadata.annotations accessor error: %v is of the type %T, expected map[string]string", md["annotations"], md["annotations"])
		}
		ann = map[string]any{}
	}
	for k, v := range ann {
		if _, isString := v.(string); !isString {
			return nil, "", fmt.Errorf(".metadata.annotations.%s accessor error: %v is of the type %T, expected string", k, v, v)
		}
	}
	prev, _ := ann[LastAppliedAnnotation].(string)
	delete(ann, LastAppliedAnnotation)
	if value != nil {
		ann[LastAppliedAnnotation] = *value
	}
	md["annotations"] = ann
	return out, prev, nil
}

// encodeLikeKubectl is unstructured.UnstructuredJSONScheme's encoding:
// encoding/json's Encoder, with its trailing newline.
func encodeLikeKubectl(v map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
