package validation

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/internal/value"
)

// ConfigMap, Secret, ServiceAccount and Namespace: pkg/registry/core's strategies over
// pkg/apis/core/validation's rules.

// maxSecretSize is core.MaxSecretSize: the total bytes of a Secret's or ConfigMap's data.
const maxSecretSize = 1 * 1024 * 1024

func validateConfigMap(obj map[string]any, _ Options) field.ErrorList {
	return distinct(configMapRules(obj))
}

func validateConfigMapUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	if b, _ := boolean(old, "immutable"); b {
		if nb, _ := boolean(obj, "immutable"); !nb {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !value.Equal(obj["data"], old["data"]) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
		}
		if !value.Equal(obj["binaryData"], old["binaryData"]) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), "field is immutable when `immutable` is set"))
		}
	}
	errs = append(errs, configMapRules(obj)...)
	return distinct(errs)
}

// configMapRules is ValidateConfigMap. The apiserver walks data and binaryData in Go map order;
// here keys are in sorted order.
func configMapRules(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	data, binary := mapOf(obj["data"]), mapOf(obj["binaryData"])
	total := 0
	for _, k := range sortedKeys(data) {
		p := field.NewPath("data").Key(k)
		for _, m := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(p, k, m))
		}
		if _, dup := binary[k]; dup {
			errs = append(errs, field.Invalid(p, k, "duplicate of key present in binaryData"))
		}
		s, _ := data[k].(string)
		total += len(s)
	}
	for _, k := range sortedKeys(binary) {
		for _, m := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(k), k, m))
		}
		total += len(decodedBytes(binary[k]))
	}
	if total > maxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxSecretSize))
	}
	return errs
}

// decodedBytes is a []byte field of the Go type as the object model holds it (base64 text).
func decodedBytes(v any) []byte {
	s, _ := v.(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return []byte(s)
	}
	return b
}

// Secret types and the data keys they require (core.SecretType*).
const (
	secretServiceAccountToken = "kubernetes.io/service-account-token"
	secretOpaque              = "Opaque"
	secretDockercfg           = "kubernetes.io/dockercfg"
	secretDockerConfigJSON    = "kubernetes.io/dockerconfigjson"
	secretBasicAuth           = "kubernetes.io/basic-auth"
	secretSSHAuth             = "kubernetes.io/ssh-auth"
	secretTLS                 = "kubernetes.io/tls"
)

func validateSecret(obj map[string]any, _ Options) field.ErrorList {
	return distinct(secretRules(obj))
}

func validateSecretUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, immutable(field.NewPath("type"), str(obj, "type"), str(old, "type"))...)
	if b, _ := boolean(old, "immutable"); b {
		if nb, _ := boolean(obj, "immutable"); !nb {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !value.Equal(obj["data"], old["data"]) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
		}
	}
	errs = append(errs, secretRules(obj)...)
	return distinct(errs)
}

// secretRules is ValidateSecret (data keys in sorted order, see configMapRules).
func secretRules(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	dataPath := field.NewPath("data")
	data := mapOf(obj["data"])
	total := 0
	for _, k := range sortedKeys(data) {
		for _, m := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(dataPath.Key(k), k, m))
		}
		total += len(decodedBytes(data[k]))
	}
	if total > maxSecretSize {
		errs = append(errs, field.TooLong(dataPath, "", maxSecretSize))
	}
	wellFormedJSON := func(key string) {
		raw, ok := data[key]
		if !ok {
			errs = append(errs, field.Required(dataPath.Key(key), ""))
			return
		}
		if err := json.Unmarshal(decodedBytes(raw), &map[string]any{}); err != nil {
			errs = append(errs, field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error()))
		}
	}
	switch str(obj, "type") {
	case secretServiceAccountToken:
		if mapOf(mapOf(obj["metadata"])["annotations"])["kubernetes.io/service-account.name"] == nil ||
			str(mapOf(mapOf(obj["metadata"])["annotations"]), "kubernetes.io/service-account.name") == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key("kubernetes.io/service-account.name"), ""))
		}
	case secretDockercfg:
		wellFormedJSON(".dockercfg")
	case secretDockerConfigJSON:
		wellFormedJSON(".dockerconfigjson")
	case secretBasicAuth:
		_, user := data["username"]
		_, pass := data["password"]
		if !user && !pass {
			errs = append(errs, field.Required(dataPath.Key("username"), ""), field.Required(dataPath.Key("password"), ""))
		}
	case secretSSHAuth:
		if len(decodedBytes(data["ssh-privatekey"])) == 0 {
			errs = append(errs, field.Required(dataPath.Key("ssh-privatekey"), ""))
		}
	case secretTLS:
		if _, ok := data["tls.crt"]; !ok {
			errs = append(errs, field.Required(dataPath.Key("tls.crt"), ""))
		}
		if _, ok := data["tls.key"]; !ok {
			errs = append(errs, field.Required(dataPath.Key("tls.key"), ""))
		}
	}
	return errs
}

// secretWarnings is the Secret strategy's warning: a TLS secret whose key does not match its
// certificate gets crypto/tls's own message.
func secretWarnings(obj, _ map[string]any, _ Options) []string {
	if str(obj, "type") != secretTLS {
		return nil
	}
	data := mapOf(obj["data"])
	if _, err := tls.X509KeyPair(decodedBytes(data["tls.crt"]), decodedBytes(data["tls.key"])); err != nil {
		return []string{err.Error()}
	}
	return nil
}

func validateServiceAccount(obj map[string]any, _ Options) field.ErrorList {
	return distinct(coreObjectMeta(obj, true, validation.NameIsDNSSubdomain))
}

func validateServiceAccountUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)...)
	return distinct(errs)
}

const enforceMountableSecrets = "kubernetes.io/enforce-mountable-secrets"

// serviceAccountWarnings: setting the deprecated enforce-mountable-secrets annotation (not
// when the stored object has it already).
func serviceAccountWarnings(obj, old map[string]any, _ Options) []string {
	if old != nil {
		if _, ok := mapOf(mapOf(old["metadata"])["annotations"])[enforceMountableSecrets]; ok {
			return nil
		}
	}
	if _, ok := mapOf(mapOf(obj["metadata"])["annotations"])[enforceMountableSecrets]; ok {
		return []string{fmt.Sprintf("metadata.annotations[%s]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets", enforceMountableSecrets)}
	}
	return nil
}

func validateNamespace(obj map[string]any, _ Options) field.ErrorList {
	return distinct(namespaceRules(obj))
}

// namespaceRules is ValidateNamespace: each spec finalizer is reported at spec.finalizers
// itself, without its index, as the apiserver does.
func namespaceRules(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSLabel)
	for _, f := range listOf(mapOf(obj["spec"])["finalizers"]) {
		s, _ := f.(string)
		errs = append(errs, finalizerName(field.NewPath("spec", "finalizers"), s)...)
	}
	return errs
}

// validateNamespaceUpdate is the strategy's ValidateUpdate (the main resource, /status and
// /finalize differ).
func validateNamespaceUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	var errs field.ErrorList
	switch opts.Subresource {
	case "status":
		errs = coreObjectMetaUpdate(obj, old)
		phase := str(mapOf(obj["status"]), "phase")
		p := field.NewPath("status", "Phase")
		if !has(mapOf(obj["metadata"]), "deletionTimestamp") {
			if phase != "Active" {
				errs = append(errs, field.Invalid(p, phase, "may only be 'Active' if `deletionTimestamp` is empty"))
			}
		} else if phase != "Terminating" {
			errs = append(errs, field.Invalid(p, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
		}
	case "finalize":
		errs = coreObjectMetaUpdate(obj, old)
		p := field.NewPath("spec", "finalizers")
		for i, f := range listOf(mapOf(obj["spec"])["finalizers"]) {
			s, _ := f.(string)
			errs = append(errs, finalizerName(p.Index(i), s)...)
		}
	default:
		errs = namespaceRules(obj)
		errs = append(errs, coreObjectMetaUpdate(obj, old)...)
	}
	return distinct(errs)
}
