package apply

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// DefaultMaxUpdateManagers is how many Update entries the apiserver keeps before folding the
// oldest into "ancient-changes" entries (one per apiVersion).
const DefaultMaxUpdateManagers = 10

// Manager names the apiserver gives entries it creates itself.
const (
	// BeforeFirstApplyManager owns the fields an object had when it was first applied to
	// without managedFields.
	BeforeFirstApplyManager = "before-first-apply"
	// AncientChangesManager collects the oldest Update managers beyond DefaultMaxUpdateManagers.
	AncientChangesManager = "ancient-changes"
	// UnknownManager is the name recorded for an empty manager name.
	UnknownManager = "unknown"
	// currentOperation is the placeholder manager the apiserver uses while computing an update.
	currentOperation = "current-operation"
)

// Request is one server-side apply (PATCH with Content-Type application/apply-patch+yaml).
type Request struct {
	// Live is the stored object, nil when it does not exist (apply then creates it).
	Live map[string]any
	// Config is the apply configuration (the request body, decoded).
	Config map[string]any
	// Kind is the kind and version of the endpoint; the zero value means Config's own.
	Kind schema.GroupVersionKind
	// Resource names the resource in the uid-mismatch conflict ("deployments.apps"); optional.
	Resource status.GroupResource
	// Manager is the fieldManager query parameter (required for apply).
	Manager string
	// Force is force=true (--force-conflicts): take conflicting fields from their owners.
	Force bool
	// Subresource is "" for the main resource, or "status", "scale", ...
	Subresource string
	// Now is the time recorded for managers whose fields changed. Never read from the clock.
	Now time.Time
	// Types converts objects to SMD typed values; nil means Builtin.
	Types TypeConverter
	// Convert converts objects between versions of the kind (for managers recorded at other
	// versions); nil means only the endpoint's version is known and ownership recorded at any
	// other version is dropped, as the apiserver does for versions it no longer serves.
	Convert schema.Converter
	// ResetFields are the fields the endpoint resets and never records as owned, per apiVersion
	// (see ResetFields in this package); nil for none.
	ResetFields map[fieldpath.APIVersion]fieldpath.Filter
	// ResetValues are the paths whose values the endpoint's strategy puts back to the stored
	// ones after the merge (see ResetPaths); "metadata" stands for the metadata fields a status
	// write resets. On create they are removed.
	ResetValues [][]string
	// Reset, when set, is the strategy's value reset of endpoints that keep only some fields of
	// the write (StrategyReset: Pod /ephemeralcontainers and /resize), run after ResetValues.
	Reset ValueReset
	// Validate, when set, is the strategy's update validation run on the result (StrategyValidation:
	// Pod /resize and /ephemeralcontainers); its 422 is Apply's error.
	Validate UpdateValidation
	// Default, when set, defaults the merged object (CRD structural defaults, built-in defaulting
	// functions). It must return a new object and not change its argument.
	Default func(map[string]any) map[string]any
	// KeepEmptyBytes has the built-in defaulting of the merged object (when Default is nil)
	// keep the omitempty []byte fields the merge leaves "" as "" (defaults.Options.KeepEmptyBytes):
	// what kube-apiserver's protobuf storage keeps of the []byte{} they decode to.
	KeepEmptyBytes bool
	// MaxUpdateManagers overrides DefaultMaxUpdateManagers when positive.
	MaxUpdateManagers int
	// CreateFrom is the object a create (Live nil) starts from; nil means what the apiserver's
	// scope.Creater.New gives: the kind's zero object for built-in kinds typed by Builtin
	// (defaults.Zero), {apiVersion, kind} for others. Drivers of the bare field manager,
	// whose reference starts from an empty object, pass {apiVersion, kind}.
	CreateFrom map[string]any
	// LibraryOnly stops at what k8s.io/apimachinery's field manager returns and skips the
	// storage-layer rule that keeps the old timestamps when nothing but timestamps changed.
	LibraryOnly bool
}

// Result is the outcome of a successful Apply or Update.
type Result struct {
	// Object is the object the apiserver stores and returns, with its managedFields.
	Object map[string]any
	// NoOp is true when Object equals Live: the storage layer would not write (resourceVersion
	// and generation unchanged).
	NoOp bool
}

func (r Request) gvk() schema.GroupVersionKind {
	if r.Kind.Empty() {
		return gvkOf(r.Config)
	}
	return r.Kind
}

func (r Request) types() TypeConverter {
	if r.Types == nil {
		return Builtin
	}
	return r.Types
}

// engine is the state shared by the layers of one request.
type engine struct {
	gvk         schema.GroupVersionKind
	gv          fieldpath.APIVersion
	subresource string
	now         time.Time
	types       TypeConverter
	convert     schema.Converter
	updater     merge.Updater
	maxUpdaters int
	defaulter   func(map[string]any) (map[string]any, error)
	// createFrom is Request.CreateFrom: the empty object of createBase.
	createFrom map[string]any
	// wholeObjects turns withoutSharedFields off (its tests compare with and without).
	wholeObjects bool
}

func newEngine(gvk schema.GroupVersionKind, subresource string, now time.Time, types TypeConverter, convert schema.Converter, reset map[fieldpath.APIVersion]fieldpath.Filter, maxUpdaters int) *engine {
	if types == nil {
		types = Builtin
	}
	if maxUpdaters <= 0 {
		maxUpdaters = DefaultMaxUpdateManagers
	}
	return &engine{
		gvk:         gvk,
		gv:          fieldpath.APIVersion(gvk.GroupVersion().String()),
		subresource: subresource,
		now:         now,
		types:       types,
		convert:     convert,
		updater:     merge.Updater{Converter: smdConverter{types: types, convert: convert}, IgnoreFilter: reset},
		maxUpdaters: maxUpdaters,
	}
}

// Apply computes what kube-apiserver 1.37 answers to a server-side apply: the merged object with
// its managedFields, or the error it returns. Inputs are not changed; the result shares no memory
// with them.
//
// The layers are those of the apiserver, outermost first: fieldManager validation (422), decoding
// of the live managedFields (500), kind check (400), kubectl's last-applied upgrade and
// annotation refresh, before-first-apply, manager identity, timestamps, metadata stripping, the
// typed merge (400 for managedFields in the config, 500 for an untypable config), conflicts
// (409), and the storage layer's no-op timestamp rule.
func Apply(req Request) (Result, error) {
	if errs := validateApplyManager(req.Manager); len(errs) > 0 {
		return Result{}, status.Invalid(status.GroupKind{Group: "meta.k8s.io", Kind: "PatchOptions"}, "", errs)
	}
	gvk := req.gvk()
	e := newEngine(gvk, req.Subresource, req.Now, req.types(), req.Convert, req.ResetFields, req.MaxUpdateManagers)
	e.defaulter = defaulterFor(req, gvk)
	e.createFrom = req.CreateFrom

	// Without a live object the apiserver starts from an empty object of the endpoint's kind
	// (patcher.createNewObject).
	exists := req.Live != nil
	live := req.Live
	if !exists {
		live = createBase(req.CreateFrom, req.Types, gvk)
	}

	// FieldManager.Apply: the live managedFields must decode.
	managed, err := managedfields.DecodeObject(live)
	if err != nil {
		return Result{}, internalError(fmt.Errorf("failed to decode managed fields: %v", err))
	}
	liveNoMF := withoutManagedFields(live)

	obj, managed, err := e.applyLastApplied(liveNoMF, req.Config, managed, req.Manager, req.Force)
	if err != nil {
		return Result{}, asStatus(err)
	}
	list, err := managedfields.EncodeList(managed)
	if err != nil {
		return Result{}, internalError(fmt.Errorf("failed to encode managed fields: %v", err))
	}
	out := obj // owned: every path above returns a fresh object
	setManagedList(out, list)
	if req.ResetValues != nil {
		resetValues(out, resetBase(req.Live, live), req.ResetValues)
	}
	if req.Reset != nil {
		req.Reset(out, req.Live)
	}
	if err := validateUpdate(req.Validate, out, req.Live); err != nil {
		return Result{}, err
	}

	// patcher.applyPatch: an object created by apply may not carry a uid.
	if !exists {
		if uid := metaString(out, "uid"); uid != "" {
			return Result{}, status.Conflict(req.Resource, metaString(req.Config, "name"),
				fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
		}
	}
	if exists && !req.LibraryOnly {
		out = keepTimesOnNoop(out, req.Live)
	}
	return Result{Object: out, NoOp: exists && equalObjects(out, req.Live)}, nil
}

func validateApplyManager(manager string) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("fieldManager")
	if manager == "" {
		errs = append(errs, field.Required(p, "is required for apply patch"))
	}
	return append(errs, managedfields.ValidateManager(manager, p)...)
}

// asStatus returns err when it already carries an HTTP status, internalError(err) otherwise.
func asStatus(err error) error {
	var se *status.Error
	if errors.As(err, &se) {
		return err
	}
	return internalError(err)
}

// internalError is how the apiserver answers an error that is not a Status: 500, reason unset,
// the error's text as message.
func internalError(err error) *status.Error {
	return &status.Error{Code: http.StatusInternalServerError, Message: err.Error()}
}

// applyLastApplied is the versionCheck, lastAppliedUpdater and lastAppliedManager layers.
func (e *engine) applyLastApplied(live, config map[string]any, managed managedfields.Managed, manager string, force bool) (map[string]any, managedfields.Managed, error) {
	if gvk := gvkOf(config); gvk != e.gvk {
		return nil, managed, status.BadRequest(fmt.Sprintf("invalid object type: %v", gvk))
	}
	obj, newManaged, err := e.applySkipNonApplied(live, config, managed.Copy(), manager, force)
	if err != nil && manager == "kubectl" {
		if conflicts, ok := err.(merge.Conflicts); ok {
			allowed, aerr := e.allowedConflictsFromLastApplied(live)
			if aerr == nil {
				if !conflicts.ToSet().Difference(allowed).Empty() {
					var rest merge.Conflicts
					for _, c := range conflicts {
						if !allowed.Has(c.Path) {
							rest = append(rest, c)
						}
					}
					err = rest
				} else {
					obj, newManaged, err = e.applySkipNonApplied(live, config, managed.Copy(), manager, true)
				}
			}
		}
	}
	if err != nil {
		if conflicts, ok := err.(merge.Conflicts); ok {
			// newManaged includes before-first-apply when the apply recorded it.
			if newManaged.Fields == nil {
				newManaged = managed
			}
			return nil, managed, newConflictError(conflicts, newManaged)
		}
		return nil, managed, err
	}
	if manager == "kubectl" && hasLastApplied(obj) {
		obj, err = setLastApplied(obj, config)
		if err != nil {
			return nil, managed, err
		}
	}
	return obj, newManaged, nil
}

// applySkipNonApplied records the fields of an object that has no managedFields as owned by
// before-first-apply, then applies.
func (e *engine) applySkipNonApplied(live, config map[string]any, managed managedfields.Managed, manager string, force bool) (map[string]any, managedfields.Managed, error) {
	if len(managed.Fields) == 0 {
		// objectCreater.New of the applied kind: the zero object for built-in kinds.
		empty := createBase(e.createFrom, e.types, gvkOf(config))
		var err error
		live, managed, err = e.updateCapped(empty, live, managed, BeforeFirstApplyManager)
		if err != nil {
			return nil, managed, fmt.Errorf("failed to create manager for existing fields: %v", err)
		}
	}
	return e.applyManaged(live, config, managed, manager, force)
}

// identifier is buildManagerInfo: the manager's identifier for this endpoint.
func (e *engine) identifier(manager string, op managedfields.Operation) string {
	if manager == "" {
		manager = UnknownManager
	}
	return managedfields.Identifier(managedfields.Entry{Manager: manager, Operation: op, APIVersion: string(e.gv), Subresource: e.subresource})
}

// applyManaged is buildManagerInfo, managedFieldsUpdater, stripMeta and the structured merge.
func (e *engine) applyManaged(live, config map[string]any, managed managedfields.Managed, manager string, force bool) (map[string]any, managedfields.Managed, error) {
	id := e.identifier(manager, managedfields.OperationApply)
	obj, managed, err := e.structuredApply(live, config, managed, id, force)
	if err != nil {
		return nil, managed, err
	}
	stripMeta(managed, id)
	if obj != nil {
		now := e.now
		managed.Times[id] = &now
		return obj, managed, nil
	}
	return toModelMap(live), managed, nil
}

// structuredApply is the structuredMergeManager's Apply. It returns a nil object when the merge
// changed nothing.
func (e *engine) structuredApply(live, config map[string]any, managed managedfields.Managed, id string, force bool) (map[string]any, managedfields.Managed, error) {
	if gv := gvkOf(config).GroupVersion(); gv != e.gvk.GroupVersion() {
		return nil, managed, status.BadRequest(fmt.Sprintf("Incorrect version specified in apply patch. Specified patch version: %s, expected: %s", gv, e.gvk.GroupVersion()))
	}
	if managedfields.Lenient(config) != nil {
		return nil, managed, status.BadRequest("metadata.managedFields must be nil")
	}
	liveVersioned, err := e.toVersioned(live)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to convert live object (%v) to proper version: %v", gvknn(live), err)
	}
	configTyped, err := e.configToTyped(config)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to create typed patch object (%v): %v", gvknn(config), schema.SortedTypeErrors(err))
	}
	liveTyped, err := e.types.ObjectToTyped(liveVersioned, typed.AllowDuplicates)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to create typed live object (%v): %v", gvknn(liveVersioned), schema.SortedTypeErrors(err))
	}
	newTyped, fields, err := e.smdApply(liveTyped, configTyped, managed.Fields, id, force)
	if err != nil {
		return nil, managed, err
	}
	managed.Fields = fields
	if newTyped == nil {
		return nil, managed, nil
	}
	obj, err := detachedObject(newTyped, liveVersioned, config)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to convert new typed object (%v) to object: %v", gvknn(config), err)
	}
	if e.defaulter != nil {
		if obj, err = e.defaulter(obj); err != nil {
			return nil, managed, fmt.Errorf("failed to convert new object (%v) to proper version: %v", gvknn(config), err)
		}
	}
	return obj, managed, nil
}

// toVersioned converts obj to the endpoint's version (identity when it is already there).
func (e *engine) toVersioned(obj map[string]any) (map[string]any, error) {
	av, _ := obj["apiVersion"].(string)
	if av == string(e.gv) {
		return obj, nil
	}
	if e.convert == nil {
		return nil, fmt.Errorf("%w: %s", ErrVersionUnknown, av)
	}
	from := gvkOf(obj)
	gv, err := schema.ParseAPIVersion(string(e.gv))
	if err != nil {
		return nil, err
	}
	return e.convert.Convert(obj, from, gv.WithKind(from.Kind))
}

// stripMetaSet holds the fields never recorded as owned (stripMetaManager).
var stripMetaSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

func stripMeta(managed managedfields.Managed, id string) {
	vs, ok := managed.Fields[id]
	if !ok || vs == nil {
		return
	}
	s := vs.Set().Difference(stripMetaSet)
	if s.Empty() {
		delete(managed.Fields, id)
		return
	}
	managed.Fields[id] = fieldpath.NewVersionedSet(s, vs.APIVersion(), vs.Applied())
}
