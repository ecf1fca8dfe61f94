package apply

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"

	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/status"
)

// Conflict is one field an apply would take from another manager.
type Conflict struct {
	// Path is the field, in structured-merge-diff notation (.spec.replicas).
	Path string
	// Owner is the manager that owns it, as recorded in the live managedFields.
	Owner managedfields.Owner

	path fieldpath.Path
	id   string
}

// ConflictError is the 409 Conflict of a server-side apply without force. Its text is the
// apiserver's message; Status holds the metav1.Status with one FieldManagerConflict cause per
// conflict. errors.As finds the *status.Error through Unwrap.
type ConflictError struct {
	Status    *status.Error
	Conflicts []Conflict
}

func (e *ConflictError) Error() string { return e.Status.Message }

// Unwrap returns the status error.
func (e *ConflictError) Unwrap() error { return e.Status }

// StatusCode is 409.
func (e *ConflictError) StatusCode() int { return e.Status.StatusCode() }

// newConflictError is NewConflictError. The apiserver lists the causes in map order (random
// across managers); here they are sorted by manager identifier, paths in field-set order.
func newConflictError(conflicts merge.Conflicts, managed managedfields.Managed) *ConflictError {
	sorted := append(merge.Conflicts(nil), conflicts...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Manager < sorted[j].Manager })
	causes := make([]status.Cause, 0, len(sorted))
	out := make([]Conflict, 0, len(sorted))
	for _, c := range sorted {
		causes = append(causes, status.Cause{
			Type:    status.CauseTypeFieldManagerConflict,
			Message: "conflict with " + printManager(c.Manager),
			Field:   c.Path.String(),
		})
		e, _ := managedfields.ParseIdentifier(c.Manager)
		owner := managedfields.Owner{Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion, Subresource: e.Subresource}
		if vs, ok := managed.Fields[c.Manager]; ok {
			owner.APIVersion = string(vs.APIVersion())
		}
		if t := managed.Times[c.Manager]; t != nil {
			tt := *t
			owner.Time = &tt
		}
		out = append(out, Conflict{Path: c.Path.String(), Owner: owner, path: c.Path, id: c.Manager})
	}
	return &ConflictError{Status: status.ApplyConflict(causes, conflictMessage(sorted)), Conflicts: out}
}

func conflictMessage(conflicts merge.Conflicts) string {
	if len(conflicts) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %v: %v", printManager(conflicts[0].Manager), conflicts[0].Path)
	}
	byManager := map[string][]fieldpath.Path{}
	var managers []string
	for _, c := range conflicts {
		if _, ok := byManager[c.Manager]; !ok {
			managers = append(managers, c.Manager)
		}
		byManager[c.Manager] = append(byManager[c.Manager], c.Path)
	}
	sort.Strings(managers)
	var lines []string
	for _, m := range managers {
		lines = append(lines, fmt.Sprintf("conflicts with %v:", printManager(m)))
		for _, p := range byManager[m] {
			lines = append(lines, fmt.Sprintf("- %v", p))
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(conflicts), strings.Join(lines, "\n"))
}

// printManager renders a manager identifier as the apiserver's conflict messages do.
func printManager(id string) string {
	var e struct {
		Manager     string  `json:"manager"`
		Operation   string  `json:"operation"`
		APIVersion  string  `json:"apiVersion"`
		Time        *string `json:"time"`
		Subresource string  `json:"subresource"`
	}
	if err := json.Unmarshal([]byte(id), &e); err != nil {
		return fmt.Sprintf("%q", id)
	}
	s := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		s = fmt.Sprintf("%s with subresource %q", s, e.Subresource)
	}
	if e.Operation == string(managedfields.OperationUpdate) {
		if e.Time == nil {
			return fmt.Sprintf("%s using %v", s, e.APIVersion)
		}
		t, err := time.Parse(time.RFC3339, *e.Time)
		if err == nil {
			return fmt.Sprintf("%s using %v at %v", s, e.APIVersion, t.UTC().Format(time.RFC3339))
		}
	}
	return s
}
