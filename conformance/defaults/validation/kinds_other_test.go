package validation

// otherKinds are the kinds other than Pod and PodTemplate, by API group.
func otherKinds() []harnessKind {
	var out []harnessKind
	out = append(out, coreKinds()...)
	out = append(out, rbacKinds()...)
	out = append(out, appsKinds()...)
	out = append(out, miscKinds()...)
	out = append(out, workloadKinds()...)
	out = append(out, networkingKinds()...)
	out = append(out, endpointKinds()...)
	out = append(out, storageKinds()...)
	out = append(out, quotaKinds()...)
	out = append(out, rcKinds()...)
	out = append(out, eventKinds()...)
	out = append(out, nodeKinds()...)
	out = append(out, admissionKinds()...)
	out = append(out, kindsBKinds()...)
	out = append(out, certificateKinds()...)
	out = append(out, kindsCKinds()...)
	out = append(out, podCertificateKinds()...)
	out = append(out, resourceKinds()...)
	out = append(out, claimKinds()...)
	out = append(out, sliceKinds()...)
	out = append(out, claimStatusKinds()...)
	return out
}
