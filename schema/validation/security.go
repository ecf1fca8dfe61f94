package validation

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// goValue is a bad value the apiserver reports as a whole internal Go struct (printed as the
// JSON of a struct without tags: Go field names). It prints as the v1 JSON of the value, with
// the typeName for reference; such errors differ from the apiserver's in the bad value only.
type goValue struct {
	v        map[string]any
	typeName string
}

func (g goValue) MarshalJSON() ([]byte, error) { return json.Marshal(g.v) }

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
