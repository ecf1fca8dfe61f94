package validation

import "github.com/writepath/writepath/schema"

// kindOf is the dispatch: the strategy of each modelled kind, by group and kind (every version
// of a kind is validated as its internal object, alike). A kind not listed has no modelled rules
// yet. Add a kind here with a line, not through registration.
func kindOf(gvk schema.GroupVersionKind) (strategy, bool) {
	switch (groupKind{gvk.Group, gvk.Kind}) {
	case groupKind{"", "Pod"}:
		return strategy{validate: validatePodCreate, validateUpdate: validatePodUpdate, warnings: podWarnings,
			prepareCreate: preparePodCreate}, true
	case groupKind{"", "PodTemplate"}:
		return strategy{validate: validatePodTemplate, validateUpdate: validatePodTemplateUpdate, warnings: podTemplateWarnings}, true
	case groupKind{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"}:
		return strategy{validate: validateVAP, validateUpdate: validateVAPUpdate, warnings: vapWarnings}, true
	case groupKind{"admissionregistration.k8s.io", "MutatingAdmissionPolicy"}:
		return strategy{validate: validateMAP, validateUpdate: validateMAPUpdate, warnings: vapWarnings}, true
	case groupKind{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"}:
		return strategy{validate: validateVWC, validateUpdate: validateVWCUpdate, warnings: webhookConfigurationWarnings}, true
	case groupKind{"admissionregistration.k8s.io", "MutatingWebhookConfiguration"}:
		return strategy{validate: validateMWC, validateUpdate: validateMWCUpdate, warnings: webhookConfigurationWarnings}, true
	case groupKind{"certificates.k8s.io", "CertificateSigningRequest"}:
		return strategy{validate: validateCSR, validateUpdate: validateCSRUpdate,
			prepareCreate: prepareCSRCreate, prepareUpdate: prepareCSRUpdate}, true
	case groupKind{"certificates.k8s.io", "ClusterTrustBundle"}:
		return strategy{validate: validateCTB, validateUpdate: validateCTBUpdate}, true
	case groupKind{"", "ConfigMap"}:
		return strategy{validate: validateConfigMap, validateUpdate: validateConfigMapUpdate}, true
	case groupKind{"", "Secret"}:
		return strategy{validate: validateSecret, validateUpdate: validateSecretUpdate, warnings: secretWarnings}, true
	case groupKind{"", "ServiceAccount"}:
		return strategy{validate: validateServiceAccount, validateUpdate: validateServiceAccountUpdate, warnings: serviceAccountWarnings}, true
	case groupKind{"", "Namespace"}:
		return strategy{validate: validateNamespace, validateUpdate: validateNamespaceUpdate,
			prepareCreate: prepareNamespaceCreate, prepareUpdate: prepareNamespaceUpdate}, true
	case groupKind{"storagemigration.k8s.io", "StorageVersionMigration"}:
		return strategy{validate: validateStorageVersionMigration, validateUpdate: validateStorageVersionMigrationUpdate}, true
	case groupKind{"apiregistration.k8s.io", "APIService"}:
		return strategy{validate: validateAPIService, validateUpdate: validateAPIServiceUpdate, prepareCreate: prepareAPIServiceCreate}, true
	case groupKind{"resource.k8s.io", "DeviceTaintRule"}:
		return strategy{validate: validateDeviceTaintRule, validateUpdate: validateDeviceTaintRuleUpdate, prepareUpdate: prepareDeviceTaintRuleUpdate}, true
	case groupKind{"certificates.k8s.io", "PodCertificateRequest"}:
		return strategy{validate: validatePodCertificateRequest, validateUpdate: validatePodCertificateRequestUpdate}, true
	case groupKind{"rbac.authorization.k8s.io", "Role"}:
		return strategy{validate: validateRole, validateUpdate: validateRoleUpdate}, true
	case groupKind{"rbac.authorization.k8s.io", "ClusterRole"}:
		return strategy{validate: validateClusterRole, validateUpdate: validateClusterRoleUpdate}, true
	case groupKind{"rbac.authorization.k8s.io", "RoleBinding"}:
		return strategy{validate: validateRoleBinding, validateUpdate: validateRoleBindingUpdate}, true
	case groupKind{"rbac.authorization.k8s.io", "ClusterRoleBinding"}:
		return strategy{validate: validateClusterRoleBinding, validateUpdate: validateClusterRoleBindingUpdate}, true
	case groupKind{"apps", "Deployment"}:
		return strategy{validate: validateDeployment, validateUpdate: validateDeploymentUpdate, warnings: deploymentWarnings}, true
	case groupKind{"apps", "DaemonSet"}:
		return strategy{validate: validateDaemonSet, validateUpdate: validateDaemonSetUpdate, warnings: daemonSetWarnings,
			prepareCreate: prepareDaemonSetCreate, prepareUpdate: prepareDaemonSetUpdate}, true
	case groupKind{"apps", "ReplicaSet"}:
		return strategy{validate: validateReplicaSet, validateUpdate: validateReplicaSetUpdate, warnings: deploymentWarnings}, true
	case groupKind{"", "Service"}:
		return strategy{validate: validateService, validateUpdate: validateServiceUpdate, warnings: serviceWarnings}, true
	case groupKind{"coordination.k8s.io", "Lease"}:
		return strategy{validate: validateLease, validateUpdate: validateLeaseUpdate}, true
	case groupKind{"scheduling.k8s.io", "PriorityClass"}:
		return strategy{validate: validatePriorityClass, validateUpdate: validatePriorityClassUpdate}, true
	case groupKind{"policy", "PodDisruptionBudget"}:
		return strategy{validate: validatePodDisruptionBudget, validateUpdate: validatePodDisruptionBudgetUpdate}, true
	case groupKind{"apps", "StatefulSet"}:
		return strategy{validate: validateStatefulSet, validateUpdate: validateStatefulSetUpdate, warnings: statefulSetWarnings}, true
	case groupKind{"networking.k8s.io", "Ingress"}:
		return strategy{validate: validateIngress, validateUpdate: validateIngressUpdate, warnings: ingressWarnings}, true
	case groupKind{"networking.k8s.io", "IngressClass"}:
		return strategy{validate: validateIngressClass, validateUpdate: validateIngressClassUpdate}, true
	case groupKind{"networking.k8s.io", "NetworkPolicy"}:
		return strategy{validate: validateNetworkPolicy, validateUpdate: validateNetworkPolicyUpdate, warnings: networkPolicyWarnings}, true
	case groupKind{"discovery.k8s.io", "EndpointSlice"}:
		return strategy{validate: validateEndpointSlice, validateUpdate: validateEndpointSliceUpdate, warnings: endpointSliceWarnings,
			prepareCreate: prepareEndpointSliceCreate, prepareUpdate: prepareEndpointSliceUpdate}, true
	case groupKind{"", "PersistentVolumeClaim"}:
		return strategy{validate: validatePersistentVolumeClaim, validateUpdate: validatePersistentVolumeClaimUpdate, warnings: claimWarnings,
			prepareCreate: prepareClaimCreate, prepareUpdate: prepareClaimUpdate}, true
	case groupKind{"storage.k8s.io", "StorageClass"}:
		return strategy{validate: validateStorageClass, validateUpdate: validateStorageClassUpdate, warnings: storageClassWarnings}, true
	case groupKind{"", "Endpoints"}:
		return strategy{validate: validateEndpoints, validateUpdate: validateEndpointsUpdate, warnings: endpointsWarnings}, true
	case groupKind{"autoscaling", "HorizontalPodAutoscaler"}:
		return strategy{validate: validateHPA, validateUpdate: validateHPAUpdate}, true
	case groupKind{"batch", "CronJob"}:
		return strategy{validate: validateCronJob, validateUpdate: validateCronJobUpdate, warnings: cronJobWarnings}, true
	case groupKind{"batch", "Job"}:
		return strategy{validate: validateJob, validateUpdate: validateJobUpdate, warnings: jobWarnings,
			prepareCreate: prepareJobCreate}, true
	case groupKind{"", "PersistentVolume"}:
		return strategy{validate: validatePersistentVolume, validateUpdate: validatePersistentVolumeUpdate, warnings: pvWarnings,
			prepareCreate: preparePVCreate, prepareUpdate: preparePVUpdate}, true
	case groupKind{"", "ResourceQuota"}:
		return strategy{validate: validateResourceQuota, validateUpdate: validateResourceQuotaUpdate, warnings: quotaWarnings}, true
	case groupKind{"", "LimitRange"}:
		return strategy{validate: validateLimitRange, validateUpdate: validateLimitRangeUpdate}, true
	case groupKind{"", "ReplicationController"}:
		return strategy{validate: validateReplicationController, validateUpdate: validateReplicationControllerUpdate, warnings: rcWarnings}, true
	case groupKind{"apps", "ControllerRevision"}:
		return strategy{validate: validateControllerRevision, validateUpdate: validateControllerRevisionUpdate}, true
	case groupKind{"", "Event"}, groupKind{"events.k8s.io", "Event"}:
		strict := strictEvents(gvk.Group)
		return strategy{validate: validateEvent(strict), validateUpdate: validateEventUpdate(strict)}, true
	case groupKind{"", "Node"}:
		return strategy{validate: validateNode, validateUpdate: validateNodeUpdate, warnings: nodeWarnings,
			prepareCreate: prepareNodeCreate, prepareUpdate: prepareNodeUpdate}, true
	case groupKind{"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"}:
		return strategy{validate: validateVAPBinding, validateUpdate: validateVAPBindingUpdate, warnings: vapBindingWarnings}, true
	case groupKind{"admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"}:
		return strategy{validate: validateMAPBinding, validateUpdate: validateMAPBindingUpdate, warnings: vapBindingWarnings}, true
	case groupKind{"node.k8s.io", "RuntimeClass"}:
		return strategy{validate: validateRuntimeClass, validateUpdate: validateRuntimeClassUpdate, warnings: runtimeClassWarnings}, true
	case groupKind{"storage.k8s.io", "CSIDriver"}:
		return strategy{validate: validateCSIDriver, validateUpdate: validateCSIDriverUpdate, warnings: csiDriverWarnings}, true
	case groupKind{"storage.k8s.io", "CSINode"}:
		return strategy{validate: validateCSINode, validateUpdate: validateCSINodeUpdate, prepareUpdate: prepareCSINodeUpdate}, true
	case groupKind{"storage.k8s.io", "CSIStorageCapacity"}:
		return strategy{validate: validateCSIStorageCapacity, validateUpdate: validateCSIStorageCapacityUpdate, warnings: csiStorageCapacityWarnings}, true
	case groupKind{"storage.k8s.io", "VolumeAttachment"}:
		return strategy{validate: validateVolumeAttachment, validateUpdate: validateVolumeAttachmentUpdate}, true
	case groupKind{"storage.k8s.io", "VolumeAttributesClass"}:
		return strategy{validate: validateVolumeAttributesClass, validateUpdate: validateVolumeAttributesClassUpdate}, true
	case groupKind{"networking.k8s.io", "IPAddress"}:
		return strategy{validate: validateIPAddress, validateUpdate: validateIPAddressUpdate}, true
	case groupKind{"networking.k8s.io", "ServiceCIDR"}:
		return strategy{validate: validateServiceCIDR, validateUpdate: validateServiceCIDRUpdate}, true
	case groupKind{"flowcontrol.apiserver.k8s.io", "FlowSchema"}:
		return strategy{validate: validateFlowSchema, validateUpdate: validateFlowSchemaUpdate}, true
	case groupKind{"flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"}:
		return strategy{validate: validatePriorityLevelConfiguration, validateUpdate: validatePriorityLevelConfigurationUpdate}, true
	case groupKind{"resource.k8s.io", "ResourceClaimTemplate"}:
		return strategy{validate: validateResourceClaimTemplate, validateUpdate: validateResourceClaimTemplateUpdate,
			prepareCreate: prepareResourceClaimTemplateCreate, prepareUpdate: prepareResourceClaimTemplateUpdate}, true
	case groupKind{"resource.k8s.io", "ResourceClaim"}:
		return strategy{validate: validateResourceClaim, validateUpdate: validateResourceClaimUpdate,
			prepareCreate: prepareResourceClaimCreate, prepareUpdate: prepareResourceClaimUpdate}, true
	case groupKind{"resource.k8s.io", "ResourceSlice"}:
		return strategy{validate: validateResourceSlice, validateUpdate: validateResourceSliceUpdate, warnings: resourceSliceWarnings,
			prepareCreate: prepareResourceSliceCreate, prepareUpdate: prepareResourceSliceUpdate}, true
	case groupKind{"resource.k8s.io", "DeviceClass"}:
		return strategy{validate: validateDeviceClass, validateUpdate: validateDeviceClassUpdate}, true
	}
	return strategy{}, false
}
