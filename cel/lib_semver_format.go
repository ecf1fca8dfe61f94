package cel

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/decls"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/writepath/writepath/internal/validation"
)

// semverLib is kubernetes.Semver (version 1: the normalising overloads).
type semverLib struct{ version uint32 }

func (*semverLib) LibraryName() string { return "kubernetes.Semver" }

func semverOf(v ref.Val) (SemverVersion, bool) {
	s, ok := v.Value().(SemverVersion)
	return s, ok
}

func semverBinary(f func(a, b SemverVersion) ref.Val) func(a, b ref.Val) ref.Val {
	return func(arg, other ref.Val) ref.Val {
		v, ok := semverOf(arg)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		v2, ok := semverOf(other)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(v, v2)
	}
}

func semverUnary(f func(SemverVersion) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		v, ok := semverOf(arg)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(v)
	}
}

func semverParseArgs(arg, normalizeArg ref.Val) (SemverVersion, error, ref.Val) {
	str, ok := arg.Value().(string)
	if !ok {
		return SemverVersion{}, nil, types.MaybeNoSuchOverloadErr(arg)
	}
	normalize, ok := normalizeArg.Value().(bool)
	if !ok {
		return SemverVersion{}, nil, types.MaybeNoSuchOverloadErr(arg)
	}
	if normalize {
		v, err := normalizeAndParseSemver(str)
		return v, err, nil
	}
	v, err := ParseSemver(str)
	return v, err, nil
}

func stringToSemver(arg, normalize ref.Val) ref.Val {
	v, err, bad := semverParseArgs(arg, normalize)
	if bad != nil {
		return bad
	}
	if err != nil {
		return types.WrapErr(err)
	}
	return Semver{V: v}
}

func isSemver(arg, normalize ref.Val) ref.Val {
	_, err, bad := semverParseArgs(arg, normalize)
	if bad != nil {
		return bad
	}
	return types.Bool(err == nil)
}

func (l *semverLib) CompileOptions() []celgo.EnvOption {
	S := SemverType
	semverO := []celgo.FunctionOpt{celgo.Overload("string_to_semver", []*celgo.Type{celgo.StringType}, S,
		celgo.UnaryBinding(func(a ref.Val) ref.Val { return stringToSemver(a, types.False) }))}
	isSemverO := []celgo.FunctionOpt{celgo.Overload("is_semver_string", []*celgo.Type{celgo.StringType}, celgo.BoolType,
		celgo.UnaryBinding(func(a ref.Val) ref.Val { return isSemver(a, types.False) }))}
	if l.version >= 1 {
		semverO = append(semverO, celgo.Overload("string_bool_to_semver", []*celgo.Type{celgo.StringType, celgo.BoolType}, S, celgo.BinaryBinding(stringToSemver)))
		isSemverO = append(isSemverO, celgo.Overload("is_semver_string_bool", []*celgo.Type{celgo.StringType, celgo.BoolType}, celgo.BoolType, celgo.BinaryBinding(isSemver)))
	}
	return []celgo.EnvOption{
		celgo.Function("semver", semverO...),
		celgo.Function("isSemver", isSemverO...),
		celgo.Function("isGreaterThan", celgo.MemberOverload("semver_is_greater_than", []*celgo.Type{S, S}, celgo.BoolType,
			celgo.BinaryBinding(semverBinary(func(a, b SemverVersion) ref.Val { return types.Bool(a.Compare(b) == 1) })))),
		celgo.Function("isLessThan", celgo.MemberOverload("semver_is_less_than", []*celgo.Type{S, S}, celgo.BoolType,
			celgo.BinaryBinding(semverBinary(func(a, b SemverVersion) ref.Val { return types.Bool(a.Compare(b) == -1) })))),
		celgo.Function("compareTo", celgo.MemberOverload("semver_compare_to", []*celgo.Type{S, S}, celgo.IntType,
			celgo.BinaryBinding(semverBinary(func(a, b SemverVersion) ref.Val { return types.Int(a.Compare(b)) })))),
		celgo.Function("major", celgo.MemberOverload("semver_major", []*celgo.Type{S}, celgo.IntType,
			celgo.UnaryBinding(semverUnary(func(v SemverVersion) ref.Val { return types.Int(v.Major) })))),
		celgo.Function("minor", celgo.MemberOverload("semver_minor", []*celgo.Type{S}, celgo.IntType,
			celgo.UnaryBinding(semverUnary(func(v SemverVersion) ref.Val { return types.Int(v.Minor) })))),
		celgo.Function("patch", celgo.MemberOverload("semver_patch", []*celgo.Type{S}, celgo.IntType,
			celgo.UnaryBinding(semverUnary(func(v SemverVersion) ref.Val { return types.Int(v.Patch) })))),
	}
}

func (*semverLib) ProgramOptions() []celgo.ProgramOption { return nil }

// formatLib is kubernetes.format: format.<name>() constants, format.named(name) and
// <format>.validate(string).
type formatLib struct{}

func (*formatLib) LibraryName() string { return "kubernetes.format" }

const (
	uuidPattern     = `(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`
	dateTimePattern = `^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`
	urlLength       = 1103
	base64Length    = 84
)

var (
	rxUUID     = regexp.MustCompile(uuidPattern)
	rxDateTime = regexp.MustCompile(dateTimePattern)
	rxBase64   = regexp.MustCompile("^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$")
)

func withPrefix(f func(string) []string, prefix bool) func(string) []string {
	return func(s string) []string {
		if prefix {
			s = validation.MaskTrailingDash(s)
		}
		return f(s)
	}
}

func isDateFormat(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func isDateTimeFormat(s string) bool {
	if len(s) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(s), "t")
	if len(parts) < 2 || !isDateFormat(parts[0]) {
		return false
	}
	m := rxDateTime.FindStringSubmatch(parts[1])
	if len(m) == 0 {
		return false
	}
	return m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

func oneMessage(ok func(string) bool, msg string) func(string) []string {
	return func(s string) []string {
		if !ok(s) {
			return []string{msg}
		}
		return nil
	}
}

// constantFormats are the format.<name>() constants.
var constantFormats = map[string]Format{
	"dns1123Label":           {Name: "DNS1123Label", ValidateFunc: withPrefix(validation.IsDNS1123Label, false), MaxRegexSize: 30},
	"dns1123Subdomain":       {Name: "DNS1123Subdomain", ValidateFunc: withPrefix(validation.IsDNS1123Subdomain, false), MaxRegexSize: 60},
	"dns1035Label":           {Name: "DNS1035Label", ValidateFunc: withPrefix(validation.IsDNS1035Label, false), MaxRegexSize: 30},
	"qualifiedName":          {Name: "QualifiedName", ValidateFunc: validation.IsQualifiedName, MaxRegexSize: 60},
	"dns1123LabelPrefix":     {Name: "DNS1123LabelPrefix", ValidateFunc: withPrefix(validation.IsDNS1123Label, true), MaxRegexSize: 30},
	"dns1123SubdomainPrefix": {Name: "DNS1123SubdomainPrefix", ValidateFunc: withPrefix(validation.IsDNS1123Subdomain, true), MaxRegexSize: 60},
	"dns1035LabelPrefix":     {Name: "DNS1035LabelPrefix", ValidateFunc: withPrefix(validation.IsDNS1035Label, true), MaxRegexSize: 30},
	"labelValue":             {Name: "LabelValue", ValidateFunc: validation.IsValidLabelValue, MaxRegexSize: 40},
	"uri": {Name: "URI", ValidateFunc: func(s string) []string {
		if _, err := url.ParseRequestURI(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}, MaxRegexSize: urlLength},
	"uuid":     {Name: "uuid", ValidateFunc: oneMessage(rxUUID.MatchString, "does not match the UUID format"), MaxRegexSize: len(uuidPattern)},
	"byte":     {Name: "byte", ValidateFunc: oneMessage(rxBase64.MatchString, "invalid base64"), MaxRegexSize: base64Length},
	"date":     {Name: "date", ValidateFunc: oneMessage(isDateFormat, "invalid date"), MaxRegexSize: len(dateTimePattern)},
	"datetime": {Name: "datetime", ValidateFunc: oneMessage(isDateTimeFormat, "invalid datetime"), MaxRegexSize: len(dateTimePattern)},
}

// zeroArgBinding binds a nullary overload (cel.FunctionBinding rejects zero arguments).
func zeroArgBinding(binding func() ref.Val) decls.OverloadOpt {
	return func(o *decls.OverloadDecl) (*decls.OverloadDecl, error) {
		wrapped, err := decls.FunctionBinding(func(...ref.Val) ref.Val { return binding() })(o)
		if err != nil {
			return nil, err
		}
		if len(wrapped.ArgTypes()) != 0 {
			return nil, fmt.Errorf("function binding must have 0 arguments")
		}
		return o, nil
	}
}

func (*formatLib) CompileOptions() []celgo.EnvOption {
	opts := []celgo.EnvOption{
		celgo.Function("validate", celgo.MemberOverload("format-validate", []*celgo.Type{FormatType, celgo.StringType},
			celgo.OptionalType(celgo.ListType(celgo.StringType)), celgo.BinaryBinding(formatValidate))),
		celgo.Function("format.named", celgo.Overload("format-named", []*celgo.Type{celgo.StringType}, celgo.OptionalType(FormatType),
			celgo.UnaryBinding(func(name ref.Val) ref.Val {
				n, ok := name.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(name)
				}
				f, ok := constantFormats[n]
				if !ok {
					return types.OptionalNone
				}
				return types.OptionalOf(f)
			}))),
	}
	for name, f := range constantFormats {
		f := f
		full := "format." + name
		opts = append(opts, celgo.Function(full, celgo.Overload(full, []*celgo.Type{}, FormatType, zeroArgBinding(func() ref.Val { return f }))))
	}
	return opts
}

func (*formatLib) ProgramOptions() []celgo.ProgramOption { return nil }

func formatValidate(arg1, arg2 ref.Val) ref.Val {
	f, ok := arg1.Value().(Format)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	s, ok := arg2.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg2)
	}
	res := f.ValidateFunc(s)
	if len(res) == 0 {
		return types.OptionalNone
	}
	return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, res))
}
