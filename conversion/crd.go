package conversion

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
	kindvalidation "github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
)

// Strategy is spec.conversion.strategy of a CustomResourceDefinition.
type Strategy string

const (
	// StrategyNone rewrites apiVersion only (the fields are then pruned by the target
	// version's schema).
	StrategyNone Strategy = "None"
	// StrategyWebhook sends a ConversionReview to the CRD's conversion webhook.
	StrategyWebhook Strategy = "Webhook"
)

// CRD is a CustomResourceDefinition read for its versions and its conversion settings. It is
// read-only once built and safe for concurrent use.
type CRD struct {
	// Schema holds the versions and their structural schemas.
	Schema *schema.CRD
	// Strategy is spec.conversion.strategy ("None" when spec.conversion is absent, as the v1
	// defaulting sets it).
	Strategy Strategy
	// Webhook is spec.conversion.webhook; nil unless Strategy is Webhook.
	Webhook *Webhook
}

// Webhook is the conversion webhook of a CRD (spec.conversion.webhook).
type Webhook struct {
	// URL is clientConfig.url ("" when a service is referenced).
	URL string
	// Service is clientConfig.service (nil when URL is set).
	Service *Service
	// CABundle is clientConfig.caBundle (PEM), nil when unset or whitespace only.
	CABundle []byte
	// ConversionReviewVersions lists the ConversionReview versions the webhook accepts, in
	// preference order; the first of "v1" and "v1beta1" found is sent.
	ConversionReviewVersions []string
}

// Service is a webhook's service reference. Port defaults to 443.
type Service struct {
	Namespace, Name, Path string
	Port                  int32
}

var crdGK = status.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// FromCRDBytes decodes a CustomResourceDefinition (YAML or JSON) and calls FromCRD.
func FromCRDBytes(data []byte) (*CRD, error) {
	obj, err := codec.DecodeObject(data)
	if err != nil {
		return nil, err
	}
	return FromCRD(obj)
}

// FromCRD reads an apiextensions.k8s.io/v1 CustomResourceDefinition: its versions (through
// schema.FromCRD, which rejects a CRD without exactly one storage version with apiextensions'
// 422) and spec.conversion, validated as apiextensions validates it (422 Invalid with its
// messages and its internal field paths, spec.conversion.webhookClientConfig...). crd is not
// modified.
func FromCRD(crd map[string]any) (*CRD, error) {
	sc, err := schema.FromCRD(crd)
	if err != nil {
		return nil, err
	}
	c := &CRD{Schema: sc, Strategy: StrategyNone}
	spec, _ := crd["spec"].(map[string]any)
	conv, ok := spec["conversion"].(map[string]any)
	if !ok || conv == nil {
		if x, present := spec["conversion"]; present && x != nil {
			return nil, status.BadRequest(fmt.Sprintf("spec.conversion: cannot unmarshal %s into CustomResourceConversion", codec.JSONKind(x)))
		}
		return c, nil
	}
	var errs field.ErrorList
	fld := field.NewPath("spec", "conversion")
	strategy, err := str(conv, "strategy", "spec.conversion.strategy")
	if err != nil {
		return nil, err
	}
	c.Strategy = Strategy(strategy)
	var cc map[string]any
	var reviewVersions []string
	hasReviewVersions := false
	if wh, ok := conv["webhook"].(map[string]any); ok {
		if x, ok := wh["clientConfig"].(map[string]any); ok {
			cc = x
		}
		if x, present := wh["conversionReviewVersions"]; present && x != nil {
			l, ok := x.([]any)
			if !ok {
				return nil, status.BadRequest("spec.conversion.webhook.conversionReviewVersions: cannot unmarshal " + codec.JSONKind(x) + " into []string")
			}
			hasReviewVersions = true
			for _, e := range l {
				s, ok := e.(string)
				if !ok {
					return nil, status.BadRequest("spec.conversion.webhook.conversionReviewVersions: cannot unmarshal " + codec.JSONKind(e) + " into string")
				}
				reviewVersions = append(reviewVersions, s)
			}
		}
	}
	if c.Strategy == StrategyWebhook {
		w := &Webhook{ConversionReviewVersions: reviewVersions}
		var urlSet, serviceSet bool
		if cc != nil {
			if u, present := cc["url"]; present && u != nil {
				s, ok := u.(string)
				if !ok {
					return nil, status.BadRequest("spec.conversion.webhook.clientConfig.url: cannot unmarshal " + codec.JSONKind(u) + " into string")
				}
				w.URL, urlSet = s, true
			}
			if sv, ok := cc["service"].(map[string]any); ok {
				serviceSet = true
				s := &Service{Port: 443}
				for _, k := range []struct {
					key string
					dst *string
				}{{"namespace", &s.Namespace}, {"name", &s.Name}, {"path", &s.Path}} {
					if *k.dst, err = str(sv, k.key, "spec.conversion.webhook.clientConfig.service."+k.key); err != nil {
						return nil, err
					}
				}
				if p, present := sv["port"]; present && p != nil {
					n, ok := p.(int64)
					if !ok || n < -1<<31 || n >= 1<<31 {
						return nil, status.BadRequest("spec.conversion.webhook.clientConfig.service.port: cannot unmarshal " + codec.JSONKind(p) + " into int32")
					}
					s.Port = int32(n)
				}
				w.Service = s
				_, hasPath := sv["path"]
				// apiextensions passes the service's name as the namespace and its namespace as
				// the name, as the webhook configurations' validation does: an empty name is
				// reported at service.namespace, and the other way round.
				errs = append(errs, kindvalidation.WebhookService(fld.Child("webhookClientConfig", "service"), s.Name, s.Namespace, s.Path, hasPath, int64(s.Port))...)
			}
			if b, present := cc["caBundle"]; present && b != nil {
				s, ok := b.(string)
				if !ok {
					return nil, status.BadRequest("spec.conversion.webhook.clientConfig.caBundle: cannot unmarshal " + codec.JSONKind(b) + " into []byte")
				}
				raw, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return nil, status.BadRequest("spec.conversion.webhook.clientConfig.caBundle: " + err.Error())
				}
				// An invalid caBundle is allowed on create (the CRD is not established yet): it
				// fails when the webhook client is built.
				if len(strings.TrimSpace(string(raw))) > 0 {
					w.CABundle = raw
				}
			}
		}
		if cc == nil {
			errs = append(errs, field.Required(fld.Child("webhookClientConfig"), "required when strategy is set to Webhook"))
		} else if urlSet == serviceSet {
			errs = append(errs, field.Required(fld.Child("webhookClientConfig"), "exactly one of url or service is required"))
		} else if urlSet {
			errs = append(errs, kindvalidation.WebhookURL(fld.Child("webhookClientConfig", "url"), w.URL, true)...)
		}
		errs = append(errs, validateReviewVersions(fld.Child("conversionReviewVersions"), reviewVersions)...)
		c.Webhook = w
	}
	switch c.Strategy {
	case StrategyNone, StrategyWebhook:
		if c.Strategy == StrategyNone {
			if cc != nil {
				errs = append(errs, field.Forbidden(fld.Child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"))
			}
			if hasReviewVersions && len(reviewVersions) > 0 {
				errs = append(errs, field.Forbidden(fld.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"))
			}
		}
	case "":
		errs = append(field.ErrorList{field.Required(fld.Child("strategy"), "")}, errs...)
	default:
		errs = append(field.ErrorList{field.NotSupported(fld.Child("strategy"), strategy, []string{"None", "Webhook"})}, errs...)
	}
	if len(errs) > 0 {
		return nil, status.Invalid(crdGK, sc.Name, errs)
	}
	return c, nil
}

func str(m map[string]any, k, path string) (string, error) {
	x, ok := m[k]
	if !ok || x == nil {
		return "", nil
	}
	s, ok := x.(string)
	if !ok {
		return "", status.BadRequest(path + ": cannot unmarshal " + codec.JSONKind(x) + " into string")
	}
	return s, nil
}

// checkCABundle loads a caBundle as client-go does, with its error texts.
func checkCABundle(ca []byte) error {
	if x509.NewCertPool().AppendCertsFromPEM(ca) {
		return nil
	}
	rest := ca
	for len(rest) > 0 {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return fmt.Errorf("unable to parse bytes as PEM block")
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("failed to parse certificate: %w", err)
		}
	}
	return fmt.Errorf("no valid certificate authority data seen")
}

var acceptedReviewVersions = []string{"v1", "v1beta1"}

func validateReviewVersions(fld field.Path, versions []string) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(fld.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, m := range validation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(fld.Index(i), v, m))
		}
		if v == "v1" || v == "v1beta1" {
			accepted = true
		}
	}
	if !accepted {
		vals := make([]any, len(versions))
		for i, v := range versions {
			vals[i] = v
		}
		errs = append(errs, field.Invalid(fld, vals, "must include at least one of "+strings.Join(acceptedReviewVersions, ", ")))
	}
	return errs
}

// Served reports whether version is served.
func (c *CRD) Served(version string) bool {
	v := c.Schema.Version(version)
	return v != nil && v.Served
}

// StorageVersion returns the name of the storage version.
func (c *CRD) StorageVersion() string {
	if v := c.Schema.StorageVersion(); v != nil {
		return v.Name
	}
	return ""
}

// GroupVersion returns the group version of version.
func (c *CRD) GroupVersion(version string) schema.GroupVersion {
	return schema.GroupVersion{Group: c.Schema.Group, Version: version}
}

// Warnings returns the warnings the apiserver adds to every request through version (see
// schema.Version.DeprecationWarning); nil for a version that is not deprecated.
func (c *CRD) Warnings(version string) []string {
	v := c.Schema.Version(version)
	if v == nil {
		return nil
	}
	if w := v.Warning(); w != "" {
		return []string{w}
	}
	return nil
}
