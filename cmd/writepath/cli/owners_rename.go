package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
)

// renameFlags are the flags of `owners --rename`.
type renameFlags struct {
	config, subresource, now string
	crd                      fileList
	// crds are the --crd files' CRDs and those found among the -f objects.
	crds []map[string]any
}

// given reports whether a flag that goes with --rename was given.
func (rf renameFlags) given() bool {
	return rf.config != "" || rf.subresource != "" || rf.now != "" || len(rf.crd) > 0
}

// runRename prints apply.PlanRename for `owners --rename OLD=NEW`.
func (e *env) runRename(live map[string]any, spec string, rf renameFlags) int {
	from, to, ok := strings.Cut(spec, "=")
	if !ok || from == "" || to == "" {
		return e.fail(usagef("--rename wants OLD=NEW, got %q", spec))
	}
	if errs := managedfields.ValidateManager(to, field.NewPath("fieldManager")); len(errs) > 0 {
		return e.fail(usagef("invalid new field manager %q: %v", to, errs.ToAggregate()))
	}
	t := time.Now().UTC()
	if rf.now != "" {
		var err error
		if t, err = time.Parse(time.RFC3339, rf.now); err != nil {
			return e.fail(usagef("invalid --now: %v", err))
		}
	}
	req := apply.Request{Live: live, Config: live, Manager: to, Subresource: rf.subresource, Now: t}
	var crd *schema.CRD
	crdDoc, err := crdFor(rf.crds, live)
	if err != nil {
		return e.fail(err)
	}
	if crdDoc != nil {
		if crd, err = schema.FromCRD(crdDoc); err != nil {
			return e.fail(err)
		}
	}
	if err := configureTypes(&req, crd, false); err != nil {
		return e.fail(err)
	}
	if rf.config != "" {
		docs, err := e.readObjects([]string{rf.config})
		if err != nil {
			return e.fail(err)
		}
		if len(docs) != 1 {
			return e.fail(usagef("the configuration must be one object, %s has %d", rf.config, len(docs)))
		}
		req.Config = docs[0]
	} else {
		config, err := appliedConfig(req, from)
		if err != nil {
			return e.fail(err)
		}
		req.Config = config
	}
	plan, err := apply.PlanRename(req, from)
	if err != nil {
		return e.fail(err)
	}
	// After the move: NEW's apply is its own re-apply; only other managers can conflict.
	entries, _, err := managedfields.FromObject(live)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	renamed, err := managedfields.Rename(entries, from, to, rf.subresource)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	moved := req
	if moved.Live, err = managedfields.WithEntries(live, renamed); err != nil {
		return e.fail(&inputError{err: err})
	}
	afterMove, err := apply.WouldConflict(moved)
	if err != nil {
		return e.fail(err)
	}
	sub := rf.subresource
	if sub == "" {
		sub = "<none>"
	}
	w := e.stdout
	fmt.Fprintf(w, "Rename field manager %q to %q (operation Apply, subresource %s)\n", from, to, sub)
	if len(plan.Owned) == 0 {
		fmt.Fprintf(w, "\n%q has no Apply entry for this subresource: there is nothing to move.\n", from)
	} else {
		fmt.Fprintf(w, "\nMoving %q's managedFields entry to %q (before %q's first apply) transfers %s:\n", from, to, to, fields(len(plan.Owned)))
		for _, p := range plan.Owned {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	switch {
	case len(plan.Owned) == 0:
	case len(afterMove) == 0:
		fmt.Fprintf(w, "\nAfter the move, %q's apply would not conflict.\n", to)
	default:
		fmt.Fprintf(w, "\nAfter the move, %q's apply would still conflict on %s (other managers):\n", to, fields(len(afterMove)))
		apply.Explain(moved, &apply.ConflictError{Conflicts: afterMove}).WriteTo(w)
	}
	if len(plan.Conflicts) == 0 {
		fmt.Fprintf(w, "\nWithout the move, %q's first apply would not conflict.\n", to)
	} else {
		fmt.Fprintf(w, "\nWithout the move, %q's first apply would conflict on %s:\n", to, fields(len(plan.Conflicts)))
		apply.Explain(req, &apply.ConflictError{Conflicts: plan.Conflicts}).WriteTo(w)
	}
	if len(plan.Shared) > 0 {
		fmt.Fprintf(w, "\nAfter a forced first apply without the move, %q would only share %s with %q\n"+
			"(removing them from %q's configuration later would not delete them while %q owns them):\n", to, fields(len(plan.Shared)), from, to, from)
		for _, p := range plan.Shared {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	return exitOK
}

// appliedConfig is what manager from applied: the live values of the fields its Apply entry
// owns (client-go's Extract), with apiVersion, kind, name and namespace.
func appliedConfig(req apply.Request, from string) (map[string]any, error) {
	entries, _, err := managedfields.FromObject(req.Live)
	if err != nil {
		return nil, &inputError{err: err}
	}
	var fieldsV1 []byte
	for _, en := range entries {
		if en.Manager == from && en.Operation == managedfields.OperationApply && en.Subresource == req.Subresource {
			fieldsV1 = en.FieldsV1
			break
		}
	}
	config := map[string]any{}
	if fieldsV1 != nil {
		set, err := managedfields.SetFromFieldsV1(fieldsV1)
		if err != nil {
			return nil, &inputError{err: err}
		}
		types := req.Types
		if types == nil {
			types = apply.Builtin
		}
		tv, err := types.ObjectToTyped(req.Live)
		if err != nil {
			return nil, &inputError{err: fmt.Errorf("cannot type the live object: %v", err)}
		}
		u, ok := tv.ExtractItems(set.Leaves()).AsValue().Unstructured().(map[string]any)
		if ok {
			config = u
		}
	}
	md, _ := config["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	lmd, _ := req.Live["metadata"].(map[string]any)
	for _, k := range []string{"name", "namespace"} {
		if v, ok := lmd[k]; ok {
			md[k] = v
		}
	}
	config["metadata"] = md
	config["apiVersion"], config["kind"] = req.Live["apiVersion"], req.Live["kind"]
	if config["apiVersion"] == nil || config["kind"] == nil {
		return nil, &inputError{err: errors.New("the live object needs apiVersion and kind")}
	}
	return config, nil
}

func fields(n int) string {
	if n == 1 {
		return "1 field"
	}
	return fmt.Sprintf("%d fields", n)
}
