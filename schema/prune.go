package schema

import (
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/internal/value"
)

// PruneOptions controls Prune.
type PruneOptions struct {
	// IsResourceRoot says obj is a whole resource: apiVersion, kind and metadata at its top are
	// kept (they are handled by metadata coercion instead), as the apiserver does.
	IsResourceRoot bool
	// ReturnPruned asks for the paths of the removed fields ("spec.foo", "spec.list[0].bar").
	ReturnPruned bool
}

// Prune returns a copy of obj without the fields s does not specify, like apiextensions'
// pruning.PruneWithOptions: x-kubernetes-preserve-unknown-fields keeps unknown fields (while
// still pruning inside specified ones), x-kubernetes-embedded-resource keeps apiVersion, kind and
// metadata. With ReturnPruned it also returns the sorted paths of what was removed. obj is not
// modified; the result shares nothing with it.
func Prune(obj any, s *Structural, opts PruneOptions) (any, []string) {
	out := value.Clone(obj)
	paths := pruneInPlace(out, s, opts.IsResourceRoot, opts.ReturnPruned)
	return out, paths
}

// pruneInPlace prunes x (which the caller owns) and returns the pruned paths when track is set.
func pruneInPlace(x any, s *Structural, isResourceRoot, track bool) []string {
	if isResourceRoot {
		if s == nil {
			s = &Structural{}
		}
		if !s.XEmbeddedResource {
			c := *s
			c.XEmbeddedResource = true
			s = &c
		}
	}
	p := pruner{track: track}
	p.prune(x, s)
	sort.Strings(p.unknown)
	return p.unknown
}

type pruner struct {
	track   bool
	parent  []string
	unknown []string
}

func isMetaField(k string) bool { return k == "apiVersion" || k == "kind" || k == "metadata" }

func (p *pruner) appendKey(k string) {
	if !p.track {
		return
	}
	if len(p.parent) > 0 {
		p.parent = append(p.parent, ".")
	}
	p.parent = append(p.parent, k)
}

func (p *pruner) appendIndex(i int) {
	if !p.track {
		return
	}
	p.parent = append(p.parent, "[", strconv.Itoa(i), "]")
}

func (p *pruner) record(k string) {
	if !p.track {
		return
	}
	l := len(p.parent)
	p.appendKey(k)
	p.unknown = append(p.unknown, strings.Join(p.parent, ""))
	p.parent = p.parent[:l]
}

func (p *pruner) prune(x any, s *Structural) {
	if s != nil && s.XPreserveUnknownFields {
		p.skipPrune(x, s)
		return
	}
	orig := len(p.parent)
	switch x := x.(type) {
	case map[string]any:
		if s == nil {
			for k := range x {
				p.record(k)
				delete(x, k)
			}
			return
		}
		for k, v := range x {
			if s.XEmbeddedResource && isMetaField(k) {
				continue
			}
			if prop, ok := s.Properties[k]; ok {
				p.appendKey(k)
				p.prune(v, prop)
				p.parent = p.parent[:orig]
			} else if s.AdditionalProperties != nil {
				p.appendKey(k)
				p.prune(v, s.AdditionalProperties.Structural)
				p.parent = p.parent[:orig]
			} else {
				if !isMetaField(k) || len(p.parent) > 0 {
					p.record(k)
				}
				delete(x, k)
			}
		}
	case []any:
		var items *Structural
		if s != nil {
			items = s.Items
		}
		for i, v := range x {
			p.appendIndex(i)
			p.prune(v, items)
			p.parent = p.parent[:orig]
		}
	}
}

func (p *pruner) skipPrune(x any, s *Structural) {
	if s == nil {
		return
	}
	orig := len(p.parent)
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if s.XEmbeddedResource && isMetaField(k) {
				continue
			}
			if prop, ok := s.Properties[k]; ok {
				p.appendKey(k)
				p.prune(v, prop)
				p.parent = p.parent[:orig]
			} else if s.AdditionalProperties != nil {
				p.appendKey(k)
				p.prune(v, s.AdditionalProperties.Structural)
				p.parent = p.parent[:orig]
			}
		}
	case []any:
		for i, v := range x {
			p.appendIndex(i)
			p.skipPrune(v, s.Items)
			p.parent = p.parent[:orig]
		}
	}
}

// pruneNonNullableNullsWithoutDefaults removes null values of fields that are neither nullable
// nor defaulted (what decoding into a Go struct would do for built-in types).
func pruneNonNullableNullsWithoutDefaults(x any, s *Structural) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			fs := schemaForField(k, s)
			if v == nil && fs != nil && !fs.Nullable && fs.Default == nil {
				delete(x, k)
			} else {
				pruneNonNullableNullsWithoutDefaults(v, fs)
			}
		}
	case []any:
		var items *Structural
		if s != nil {
			items = s.Items
		}
		for _, v := range x {
			pruneNonNullableNullsWithoutDefaults(v, items)
		}
	}
}

func schemaForField(k string, s *Structural) *Structural {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[k]; ok {
		return p
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Structural
	}
	return nil
}
