package validation

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// goValue is a bad value the apiserver reports as a whole internal Go struct: apimachinery
// prints it as encoding/json writes the struct, which has no JSON tags — Go field names, in
// declaration order, every field present (null for nil pointers and slices). typeName is the
// struct's name in goStructs.
type goValue struct {
	v        map[string]any
	typeName string
}

// goField is one field of an internal struct: its Go name, its v1 JSON name and its kind:
// "string", "*string", "*bool", "*int64", "[]string", or "*T"/"T" for a struct in goStructs.
type goField struct{ goName, jsonName, kind string }

// goStructs are the internal core types (k8s.io/kubernetes pkg/apis/core, v1.37.2) this package
// reports whole, field by field in declaration order.
var goStructs = map[string][]goField{
	"SecurityContext": {{"Capabilities", "capabilities", "*Capabilities"}, {"Privileged", "privileged", "*bool"},
		{"SELinuxOptions", "seLinuxOptions", "*SELinuxOptions"}, {"WindowsOptions", "windowsOptions", "*WindowsSecurityContextOptions"},
		{"RunAsUser", "runAsUser", "*int64"}, {"RunAsGroup", "runAsGroup", "*int64"}, {"RunAsNonRoot", "runAsNonRoot", "*bool"},
		{"ReadOnlyRootFilesystem", "readOnlyRootFilesystem", "*bool"}, {"AllowPrivilegeEscalation", "allowPrivilegeEscalation", "*bool"},
		{"ProcMount", "procMount", "*string"}, {"SeccompProfile", "seccompProfile", "*SeccompProfile"},
		{"AppArmorProfile", "appArmorProfile", "*AppArmorProfile"}},
	"Capabilities":   {{"Add", "add", "[]string"}, {"Drop", "drop", "[]string"}},
	"SELinuxOptions": {{"User", "user", "string"}, {"Role", "role", "string"}, {"Type", "type", "string"}, {"Level", "level", "string"}},
	"WindowsSecurityContextOptions": {{"GMSACredentialSpecName", "gmsaCredentialSpecName", "*string"},
		{"GMSACredentialSpec", "gmsaCredentialSpec", "*string"}, {"RunAsUserName", "runAsUserName", "*string"}, {"HostProcess", "hostProcess", "*bool"}},
	"SeccompProfile":       {{"Type", "type", "string"}, {"LocalhostProfile", "localhostProfile", "*string"}},
	"AppArmorProfile":      {{"Type", "type", "string"}, {"LocalhostProfile", "localhostProfile", "*string"}},
	"PodResourceClaim":     {{"Name", "name", "string"}, {"ResourceClaimName", "resourceClaimName", "*string"}, {"ResourceClaimTemplateName", "resourceClaimTemplateName", "*string"}},
	"LocalObjectReference": {{"Name", "name", "string"}},
}

func (g goValue) MarshalJSON() ([]byte, error) {
	var b []byte
	return writeGoStruct(b, g.v, g.typeName), nil
}

func writeGoStruct(b []byte, m map[string]any, typeName string) []byte {
	fields, ok := goStructs[typeName]
	if !ok {
		j, _ := json.Marshal(m)
		return append(b, j...)
	}
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.goName...)
		b = append(b, '"', ':')
		v, set := m[f.jsonName]
		switch {
		case f.kind == "string":
			s, _ := v.(string)
			j, _ := json.Marshal(s)
			b = append(b, j...)
		case !set || v == nil:
			b = append(b, "null"...)
		case f.kind[0] == '*' && goStructs[f.kind[1:]] != nil:
			b = writeGoStruct(b, mapOf(v), f.kind[1:])
		default:
			j, _ := json.Marshal(v)
			b = append(b, j...)
		}
	}
	return append(b, '}')
}

var (
	rxCtrl          = regexp.MustCompile(`[[:cntrl:]]+`)
	rxNetBios       = regexp.MustCompile(`^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`)
	rxWindowsDNS    = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)
	rxUserBadChars  = regexp.MustCompile(`["/\\:;|=,\+\*\?<>@\[\]]`)
	rxUserDotsSpace = regexp.MustCompile(`^[\. ]+$`)
)

// windowsOptions is validateWindowsSecurityContextOptions.
func windowsOptions(p field.Path, v any) field.ErrorList {
	wo, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	if n, ok := wo["gmsaCredentialSpecName"].(string); ok {
		for _, m := range ivalidation.IsDNS1123Subdomain(n) {
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpecName"), n, m))
		}
	}
	if s, ok := wo["gmsaCredentialSpec"].(string); ok {
		if len(s) == 0 {
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpec"), s, "gmsaCredentialSpec cannot be an empty string"))
		} else if len(s) > 64*1024 {
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpec"), s, "gmsaCredentialSpec size must be under 64 KiB"))
		}
	}
	u, ok := wo["runAsUserName"].(string)
	if !ok {
		return errs
	}
	up := p.Child("runAsUserName")
	parts := strings.Split(u, "\\")
	switch {
	case len(u) == 0:
		return append(errs, field.Invalid(up, u, "runAsUserName cannot be an empty string"))
	case rxCtrl.MatchString(u):
		return append(errs, field.Invalid(up, u, "runAsUserName cannot contain control characters"))
	case len(parts) > 2:
		return append(errs, field.Invalid(up, u, "runAsUserName cannot contain more than one backslash"))
	}
	hasDomain, domain, user := false, "", parts[0]
	if len(parts) == 2 {
		hasDomain, domain, user = true, parts[0], parts[1]
	}
	if len(domain) >= 256 {
		errs = append(errs, field.Invalid(up, u, "runAsUserName's Domain length must be under 256 characters"))
	}
	if hasDomain && !(rxNetBios.MatchString(domain) || rxWindowsDNS.MatchString(domain)) {
		errs = append(errs, field.Invalid(up, u, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"))
	}
	if len(user) == 0 {
		errs = append(errs, field.Invalid(up, u, "runAsUserName's User cannot be empty"))
	} else if len(user) > 104 {
		errs = append(errs, field.Invalid(up, u, fmt.Sprintf("runAsUserName's User length must not be longer than %d characters", 104)))
	}
	if rxUserDotsSpace.MatchString(user) {
		errs = append(errs, field.Invalid(up, u, `runAsUserName's User cannot contain only periods or spaces`))
	}
	if rxUserBadChars.MatchString(user) {
		errs = append(errs, field.Invalid(up, u, `runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`))
	}
	return errs
}
