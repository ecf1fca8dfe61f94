package registry

import (
	"fmt"
	"strings"
)

// AdmissionPlugin is one of kube-apiserver 1.37's admission plugins, named as its
// --enable-admission-plugins and --disable-admission-plugins flags name it.
type AdmissionPlugin struct {
	// Name is the plugin's name (k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go).
	Name string
	// DefaultOn: kube-apiserver runs the plugin unless --disable-admission-plugins names it (it
	// is not among DefaultOffAdmissionPlugins).
	DefaultOn bool
	// Modelled: Handle runs the plugin, unless the World disables it (AdmissionPluginDisabler).
	// Every modelled plugin is default on; a plugin that is not modelled changes and refuses
	// nothing here, on or off.
	Modelled bool
}

// admissionPlugins are kube-apiserver 1.37's admission plugins in the order it runs them
// (AllOrderedPlugins). Modelling a plugin is its entry's Modelled and a pluginDisabled check
// where Handle runs it; cluster's TestDisableAdmissionPlugins needs a row for each.
var admissionPlugins = []AdmissionPlugin{
	{Name: "AlwaysAdmit"},
	{Name: "NamespaceAutoProvision"},
	{Name: "NamespaceLifecycle", DefaultOn: true, Modelled: true},
	{Name: "NamespaceExists"},
	{Name: "LimitPodHardAntiAffinityTopology"},
	{Name: "LimitRanger", DefaultOn: true, Modelled: true},
	{Name: "ServiceAccount", DefaultOn: true, Modelled: true},
	{Name: "NodeRestriction"},
	{Name: "TaintNodesByCondition", DefaultOn: true, Modelled: true},
	{Name: "AlwaysPullImages"},
	{Name: "ImagePolicyWebhook"},
	{Name: "PodSecurity", DefaultOn: true, Modelled: true},
	{Name: "PodNodeSelector"},
	{Name: "Priority", DefaultOn: true, Modelled: true},
	{Name: "DefaultTolerationSeconds", DefaultOn: true, Modelled: true},
	{Name: "PodTolerationRestriction"},
	{Name: "EventRateLimit"},
	{Name: "ExtendedResourceToleration"},
	{Name: "DefaultStorageClass", DefaultOn: true, Modelled: true},
	{Name: "StorageObjectInUseProtection", DefaultOn: true, Modelled: true},
	// PodGroupProtection is inert in 1.37 (its GenericWorkload feature is off): on or off, it
	// does nothing, here as there.
	{Name: "PodGroupProtection", DefaultOn: true, Modelled: true},
	{Name: "OwnerReferencesPermissionEnforcement"},
	{Name: "PersistentVolumeClaimResize", DefaultOn: true, Modelled: true},
	{Name: "RuntimeClass", DefaultOn: true, Modelled: true},
	{Name: "CertificateApproval", DefaultOn: true, Modelled: true},
	{Name: "CertificateSigning", DefaultOn: true, Modelled: true},
	{Name: "ClusterTrustBundleAttest", DefaultOn: true, Modelled: true},
	{Name: "CertificateSubjectRestriction", DefaultOn: true, Modelled: true},
	{Name: "DefaultIngressClass", DefaultOn: true, Modelled: true},
	{Name: "DenyServiceExternalIPs"},
	{Name: "PodTopologyLabels", DefaultOn: true, Modelled: true},
	{Name: "NodeDeclaredFeatureValidator", DefaultOn: true, Modelled: true},
	{Name: "PodResizeValidator", DefaultOn: true, Modelled: true},
	{Name: "MutatingAdmissionPolicy", DefaultOn: true, Modelled: true},
	{Name: "MutatingAdmissionWebhook", DefaultOn: true, Modelled: true},
	{Name: "ValidatingAdmissionPolicy", DefaultOn: true, Modelled: true},
	{Name: "ValidatingAdmissionWebhook", DefaultOn: true, Modelled: true},
	{Name: "ResourceQuota", DefaultOn: true, Modelled: true},
	{Name: "AlwaysDeny"},
}

// AdmissionPlugins returns kube-apiserver 1.37's admission plugins in the order it runs them
// (AllOrderedPlugins), each with whether it is default on and whether Handle models it. The
// slice is the caller's.
func AdmissionPlugins() []AdmissionPlugin {
	return append([]AdmissionPlugin(nil), admissionPlugins...)
}

// ValidateDisabledAdmissionPlugins checks a --disable-admission-plugins list as kube-apiserver's
// AdmissionOptions.Validate does (k8s.io/apiserver pkg/server/options/admission.go): each name
// must be one of its plugins, else `disable-admission-plugins plugin "X" is unknown` (several
// such errors print as utilerrors.NewAggregate prints them: in brackets, each message once).
// Every plugin kube-apiserver knows may be named, as there: disabling one that is default off,
// or one Handle does not model, changes nothing.
func ValidateDisabledAdmissionPlugins(names []string) error {
	var msgs []string
	seen := map[string]bool{}
	for _, n := range names {
		if knownAdmissionPlugin(n) {
			continue
		}
		msg := fmt.Sprintf("disable-admission-plugins plugin %q is unknown", n)
		if !seen[msg] {
			seen[msg] = true
			msgs = append(msgs, msg)
		}
	}
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s", msgs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(msgs, ", "))
}

func knownAdmissionPlugin(name string) bool {
	for _, p := range admissionPlugins {
		if p.Name == name {
			return true
		}
	}
	return false
}

// AdmissionPluginDisabler is implemented by a World whose server runs with some of
// kube-apiserver's default admission plugins turned off (--disable-admission-plugins), as
// envtest's kube-apiserver runs without ServiceAccount. Handle asks for the modelled plugins
// (AdmissionPlugins) by name; a disabled one changes and refuses nothing.
type AdmissionPluginDisabler interface {
	// AdmissionPluginDisabled reports whether the plugin of that name (kube-apiserver's, e.g.
	// "ServiceAccount") is off.
	AdmissionPluginDisabled(name string) bool
}

// pluginDisabled reports whether the World turns the (modelled) plugin name off.
func (h *handler) pluginDisabled(name string) bool {
	d, ok := h.w.(AdmissionPluginDisabler)
	return ok && d.AdmissionPluginDisabled(name)
}
