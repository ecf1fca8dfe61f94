package registry

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// Static is a World over a set of objects held in memory: the stored objects, among them the
// CustomResourceDefinitions served, the namespaces and the admission configuration. uids,
// generated names and resourceVersions come from deterministic sequences unless StaticOptions
// says otherwise. Apply stores a request's writes, so a sequence of requests sees each other's
// effects. A Static is not safe for concurrent use.
type Static struct {
	opts    StaticOptions
	objects map[storageKey]map[string]any
	crds    map[string]*schema.CRD // group/plural
	// converters are the CRDs' conversion webhooks (StaticOptions.ConversionWebhooks).
	converters []*conversion.Converter
	rv         int64
	uids       int
	names      int
}

// StaticOptions configure a Static world.
type StaticOptions struct {
	// ImplicitNamespaces makes every namespace that is not among the objects exist (Active), with
	// its "default" ServiceAccount, as a stand-in for a cluster whose namespaces the caller did
	// not list (ImplicitObject).
	ImplicitNamespaces bool
	// UID returns the uid of a created object; nil gives "00000000-0000-0000-0000-00000000000N".
	UID func() string
	// GenerateName returns a name for generateName base; nil appends five characters of the
	// apiserver's alphabet in sequence: "bbbbb", "bbbbc", ...
	GenerateName func(base string) string
	// Client calls admission webhooks; nil refuses every call.
	Client admission.WebhookClient
	// ConversionWebhooks calls the conversion webhooks of CRDs whose strategy is Webhook (over
	// HTTPS, trusting their caBundle; conversion.NewClient): writes are converted to the storage
	// version and read back through them, and admission's matchPolicy Equivalent converts
	// through them (Conversions). False converts every custom resource as strategy None.
	ConversionWebhooks bool
}

type storageKey struct {
	group, resource, namespace, name string
}

// NewStatic builds a Static world holding objs (copied). An object whose kind is neither
// built-in nor served by one of the CRDs among objs is an error, and so is a CRD the apiserver
// would refuse.
func NewStatic(objs []map[string]any, opts StaticOptions) (*Static, error) {
	s := &Static{opts: opts, objects: map[storageKey]map[string]any{}, crds: map[string]*schema.CRD{}}
	for _, o := range objs {
		if av, _ := o["apiVersion"].(string); strings.HasPrefix(av, "apiextensions.k8s.io/") && o["kind"] == "CustomResourceDefinition" {
			crd, err := schema.FromCRD(o)
			if err != nil {
				return nil, fmt.Errorf("CustomResourceDefinition %s: %w", metaString(o, "name"), err)
			}
			s.crds[crd.Group+"/"+crd.Names.Plural] = crd
			if opts.ConversionWebhooks {
				cc, err := conversion.FromCRD(o)
				if err != nil {
					return nil, fmt.Errorf("CustomResourceDefinition %s: %w", metaString(o, "name"), err)
				}
				if cc.Strategy == conversion.StrategyWebhook {
					c, err := conversion.New(cc, conversion.Options{})
					if err != nil {
						return nil, fmt.Errorf("CustomResourceDefinition %s: %w", metaString(o, "name"), err)
					}
					s.converters = append(s.converters, c)
				}
			}
		}
	}
	for _, o := range objs {
		if err := s.store(o); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// store holds a copy of o at its key; a resourceVersion above the largest seen moves
// NextResourceVersion past it.
func (s *Static) store(o map[string]any) error {
	k, err := s.keyOf(o)
	if err != nil {
		return err
	}
	c, err := value.DeepCopyMap(o)
	if err != nil {
		return err
	}
	s.objects[k] = c
	if rv, err := strconv.ParseInt(metaString(o, "resourceVersion"), 10, 64); err == nil && rv > s.rv {
		s.rv = rv
	}
	return nil
}

// Put stores obj (copied) as NewStatic would have: at the key of its kind, a CustomResourceDefinition
// also serving its resource from now on.
func (s *Static) Put(obj map[string]any) error {
	if av, _ := obj["apiVersion"].(string); strings.HasPrefix(av, "apiextensions.k8s.io/") && obj["kind"] == "CustomResourceDefinition" {
		crd, err := schema.FromCRD(obj)
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s: %w", metaString(obj, "name"), err)
		}
		s.crds[crd.Group+"/"+crd.Names.Plural] = crd
	}
	return s.store(obj)
}

// Remove deletes the object at obj's key (its apiVersion, kind, namespace and name); removing a
// CustomResourceDefinition stops serving its resource.
func (s *Static) Remove(obj map[string]any) error {
	k, err := s.keyOf(obj)
	if err != nil {
		return err
	}
	if k.group == "apiextensions.k8s.io" && k.resource == "customresourcedefinitions" {
		for gr, crd := range s.crds {
			if crd.Name == k.name {
				delete(s.crds, gr)
			}
		}
	}
	delete(s.objects, k)
	return nil
}

// keyOf is the storage key of obj: its group, resource, namespace and name.
func (s *Static) keyOf(o map[string]any) (storageKey, error) {
	av, _ := o["apiVersion"].(string)
	kind, _ := o["kind"].(string)
	gvk, err := schema.FromAPIVersionAndKind(av, kind)
	if err != nil || kind == "" {
		return storageKey{}, fmt.Errorf("object %q: needs apiVersion and kind", metaString(o, "name"))
	}
	k := storageKey{group: gvk.Group, namespace: metaString(o, "namespace"), name: metaString(o, "name")}
	if b, err := schema.Builtin(gvk); err == nil && b.Resource != "" {
		k.resource = b.Resource
		if !b.Namespaced {
			k.namespace = ""
		}
		return k, nil
	}
	for _, crd := range s.crds {
		if crd.Group == gvk.Group && crd.Names.Kind == gvk.Kind {
			k.resource = crd.Names.Plural
			if !crd.Namespaced() {
				k.namespace = ""
			}
			return k, nil
		}
	}
	return storageKey{}, fmt.Errorf("%s %q: not a built-in kind nor served by a CustomResourceDefinition given", gvk, k.name)
}

// Get implements World.
func (s *Static) Get(_ context.Context, r schema.GroupVersionResource, namespace, name string) (map[string]any, error) {
	if o, ok := s.objects[storageKey{r.Group, r.Resource, namespace, name}]; ok {
		return o, nil
	}
	if s.opts.ImplicitNamespaces {
		return ImplicitObject(r, namespace, name), nil
	}
	return nil, nil
}

// ImplicitObject is what a World that stands in for a cluster whose namespaces the caller did
// not list (StaticOptions.ImplicitNamespaces) holds beside its objects: every namespace, Active,
// and in each the "default" ServiceAccount the service account controller creates (without it
// the ServiceAccount admission plugin refuses every Pod). nil for anything else.
func ImplicitObject(r schema.GroupVersionResource, namespace, name string) map[string]any {
	switch {
	case r.Group == "" && r.Resource == "namespaces" && namespace == "" && name != "":
		return map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"kubernetes.io/metadata.name": name}},
			"spec":     map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}
	case r.Group == "" && r.Resource == "serviceaccounts" && namespace != "" && name == "default":
		return map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
			"metadata": map[string]any{"name": name, "namespace": namespace}}
	}
	return nil
}

// List implements World.
func (s *Static) List(_ context.Context, r schema.GroupVersionResource, namespace string) ([]map[string]any, error) {
	var out []map[string]any
	for k, o := range s.objects {
		if k.group == r.Group && k.resource == r.Resource && (namespace == "" || k.namespace == namespace) {
			out = append(out, o)
		}
	}
	sortObjects(out)
	return out, nil
}

// CRD implements World.
func (s *Static) CRD(_ context.Context, group, resource string) (*schema.CRD, error) {
	return s.crds[group+"/"+resource], nil
}

// Admission implements World: the admissionregistration.k8s.io/v1 objects held, and every object
// as a possible param.
func (s *Static) Admission(context.Context) (AdmissionConfig, error) {
	var cfg AdmissionConfig
	keys := make([]storageKey, 0, len(s.objects))
	for k := range s.objects {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.resource != b.resource {
			return a.resource < b.resource
		}
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		return a.name < b.name
	})
	for _, k := range keys {
		o := s.objects[k]
		if k.group == "admissionregistration.k8s.io" && o["apiVersion"] == "admissionregistration.k8s.io/v1" {
			cfg.Objects = append(cfg.Objects, o)
			continue
		}
		cfg.Params = append(cfg.Params, o)
	}
	cfg.Client = s.opts.Client
	cfg.Converters = s.converters
	return cfg, nil
}

// NewUID implements World.
func (s *Static) NewUID() string {
	if s.opts.UID != nil {
		return s.opts.UID()
	}
	s.uids++
	return fmt.Sprintf("00000000-0000-0000-0000-%012d", s.uids)
}

// GenerateName implements World.
func (s *Static) GenerateName(base string) string {
	if s.opts.GenerateName != nil {
		return s.opts.GenerateName(base)
	}
	// The apiserver appends five random characters of its alphabet; this sequence counts
	// through them: the n-th name's characters are n's five base-27 digits, most significant
	// first.
	n := s.names
	s.names++
	var digits [randomLength]int
	for i := randomLength - 1; i >= 0; i-- {
		digits[i] = n % len(nameAlphabet)
		n /= len(nameAlphabet)
	}
	next := 0
	return GenerateName(base, func(int) int { d := digits[next]; next++; return d })
}

// NextResourceVersion implements World: one past the largest resourceVersion stored so far.
func (s *Static) NextResourceVersion() string {
	s.rv++
	return strconv.FormatInt(s.rv, 10)
}

// Apply stores writes (as Handle returned them).
func (s *Static) Apply(writes []Write) error {
	for _, w := range writes {
		k := storageKey{w.Resource.Group, w.Resource.Resource, w.Namespace, w.Name}
		if w.Delete {
			delete(s.objects, k)
			continue
		}
		c, err := value.DeepCopyMap(w.Object)
		if err != nil {
			return err
		}
		s.objects[k] = c
		if w.Resource.Group == "apiextensions.k8s.io" && w.Resource.Resource == "customresourcedefinitions" {
			if crd, err := schema.FromCRD(c); err == nil {
				s.crds[crd.Group+"/"+crd.Names.Plural] = crd
			}
		}
	}
	return nil
}

// Objects returns the stored objects, sorted by group, resource, namespace and name.
func (s *Static) Objects() []map[string]any {
	keys := make([]storageKey, 0, len(s.objects))
	for k := range s.objects {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.group+"/"+a.resource+"/"+a.namespace+"/"+a.name < b.group+"/"+b.resource+"/"+b.namespace+"/"+b.name
	})
	out := make([]map[string]any, len(keys))
	for i, k := range keys {
		out[i] = s.objects[k]
	}
	return out
}

// CRDConverter implements Conversions: the conversion webhook's converter of crd when
// StaticOptions.ConversionWebhooks built one, else nil (strategy None).
func (s *Static) CRDConverter(_ context.Context, crd *schema.CRD) (*conversion.Converter, error) {
	for _, c := range s.converters {
		if cs := c.CRD().Schema; cs != nil && cs.Name == crd.Name {
			return c, nil
		}
	}
	return nil, nil
}
