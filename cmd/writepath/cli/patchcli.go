package cli

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// Helpers shared by the patch, diff and client-side apply verbs.

// patchType is the --type flag of patch and diff.
type patchType string

func (p *patchType) String() string { return string(*p) }
func (p *patchType) Type() string   { return "string" }
func (p *patchType) Set(s string) error {
	*p = patchType(s) // checked after parsing (check), so the error is kubectl's own line
	return nil
}

// check returns kubectl patch's error for a --type it does not know.
func (p patchType) check() error {
	switch p {
	case "", "json", "merge", "strategic":
		return nil
	}
	return usagef("--type must be one of [json merge strategic], not %q", string(p))
}

// kindOf returns the object's GVK and, for a built-in kind, its catalogue entry
// (nil for other kinds: custom resources).
func kindOf(obj map[string]any) (schema.GroupVersionKind, *schema.Kind, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return schema.GroupVersionKind{}, nil, usagef("the object needs apiVersion and kind")
	}
	gvk, err := schema.FromAPIVersionAndKind(apiVersion, kind)
	if err != nil {
		return schema.GroupVersionKind{}, nil, usagef("%v", err)
	}
	k, err := schema.Builtin(gvk)
	if err != nil {
		var nf *schema.NotFoundError
		if errors.As(err, &nf) {
			return gvk, nil, nil
		}
		return gvk, nil, err
	}
	return gvk, k, nil
}

// strategicMeta is the patch metadata of a built-in kind, nil otherwise.
func strategicMeta(k *schema.Kind) (merge.Meta, error) {
	if k == nil {
		return nil, nil
	}
	return merge.KindMeta(k)
}

// failPatch prints a patch error the way kubectl patch shows it and returns
// the exit code: "The request is invalid: ..." for a 422 Invalid (kubectl's
// CheckErr), kubectl's stream error where the apiserver panics, "Error from
// server (Reason): ..." otherwise.
func (e *env) failPatch(err error) int {
	if errors.Is(err, errStreamReset) || errors.Is(err, patch.ErrServerPanics) || errors.Is(err, merge.ErrServerPanics) {
		fmt.Fprintln(e.stderr, "Unable to connect to the server: stream error: stream ID 3; INTERNAL_ERROR; received from peer")
		return exitNegative
	}
	var se *status.Error
	if errors.As(err, &se) && se.Reason == status.ReasonInvalid {
		e.printStatus(se)
		fmt.Fprint(e.stderr, kubectlInvalid(se))
		return exitNegative
	}
	return e.fail(err)
}
