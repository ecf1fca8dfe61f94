package validation

// otherKinds are the kinds other than Pod and PodTemplate, by API group.
func otherKinds() []harnessKind {
	var out []harnessKind
	out = append(out, coreKinds()...)
	return out
}
