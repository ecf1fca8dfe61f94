package merge

import "strings"

// fieldInfo is a field's patch metadata as the merge and diff walks use it.
// For schema's metadata it keeps the patchStrategy tag unsplit, so a lookup
// allocates nothing; other Meta implementations give their split strategies.
type fieldInfo struct {
	raw        string // the patchStrategy tag (schema metadata)
	strategies []string
	fromSchema bool
	mergeKey   string
}

// lookupStruct is meta.LookupStruct without building FieldMeta.Strategies.
func lookupStruct(meta Meta, key string) (Meta, fieldInfo, error) {
	if s, ok := meta.(schemaMeta); ok {
		sub, info, err := s.m.LookupField(key)
		if err != nil {
			return nil, fieldInfo{}, err
		}
		return schemaMeta{sub}, fieldInfo{raw: info.Strategy, fromSchema: true, mergeKey: info.MergeKey}, nil
	}
	sub, fm, err := meta.LookupStruct(key)
	return sub, fieldInfo{strategies: fm.Strategies, mergeKey: fm.MergeKey}, err
}

// lookupSlice is meta.LookupSlice without building FieldMeta.Strategies.
func lookupSlice(meta Meta, key string) (Meta, fieldInfo, error) {
	if s, ok := meta.(schemaMeta); ok {
		sub, info, err := s.m.LookupSlice(key)
		if err != nil {
			return nil, fieldInfo{}, err
		}
		return schemaMeta{sub}, fieldInfo{raw: info.Strategy, fromSchema: true, mergeKey: info.MergeKey}, nil
	}
	sub, fm, err := meta.LookupSlice(key)
	return sub, fieldInfo{strategies: fm.Strategies, mergeKey: fm.MergeKey}, err
}

// retainKeysStrategy is extractRetainKeysPatchStrategy of the field's
// strategies (the tag split at commas), without splitting the common one- and
// two-strategy tags.
func (f fieldInfo) retainKeysStrategy() (bool, string, error) {
	if !f.fromSchema {
		return extractRetainKeysPatchStrategy(f.strategies)
	}
	first, rest, two := strings.Cut(f.raw, ",")
	if !two {
		if first == retainKeysStrategy {
			return true, "", nil
		}
		return false, first, nil
	}
	if !strings.Contains(rest, ",") {
		switch {
		case first == retainKeysStrategy:
			return true, rest, nil
		case rest == retainKeysStrategy:
			return true, first, nil
		}
	}
	return extractRetainKeysPatchStrategy(strings.Split(f.raw, ","))
}
