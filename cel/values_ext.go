package cel

import (
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"reflect"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The Kubernetes CEL types, named as k8s.io/apiserver/pkg/cel names them (type names appear in
// error messages and in type() results).
var (
	URLType      = celgo.ObjectType("kubernetes.URL")
	IPType       = celgo.OpaqueType("net.IP")
	CIDRType     = celgo.OpaqueType("net.CIDR")
	QuantityType = celgo.ObjectType("kubernetes.Quantity")
	SemverType   = celgo.ObjectType("kubernetes.Semver")
	FormatType   = celgo.ObjectType("kubernetes.NamedFormat")

	urlTypeValue      = types.NewTypeValue("kubernetes.URL")
	quantityTypeValue = types.NewTypeValue("kubernetes.Quantity")
)

// URL is the CEL value of url(string).
type URL struct{ *url.URL }

// ConvertToNative implements ref.Val.
func (d URL) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(d.URL).AssignableTo(typeDesc) {
		return d.URL, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return d.URL.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'URL' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (d URL) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case urlTypeValue:
		return d
	case types.TypeType:
		return urlTypeValue
	}
	return types.NewErr("type conversion error from '%s' to '%s'", urlTypeValue, typeVal)
}

// Equal compares the string forms, as the apiserver does.
func (d URL) Equal(other ref.Val) ref.Val {
	o, ok := other.(URL)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(d.URL.String() == o.URL.String())
}

// Type implements ref.Val.
func (d URL) Type() ref.Type { return urlTypeValue }

// Value implements ref.Val.
func (d URL) Value() any { return d.URL }

// IP is the CEL value of ip(string).
type IP struct{ netip.Addr }

// ConvertToNative implements ref.Val.
func (d IP) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(d.Addr).AssignableTo(typeDesc) {
		return d.Addr, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return d.Addr.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'IP' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (d IP) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case IPType:
		return d
	case types.TypeType:
		return IPType
	case types.StringType:
		return types.String(d.Addr.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", IPType, typeVal)
}

// Equal implements ref.Val.
func (d IP) Equal(other ref.Val) ref.Val {
	o, ok := other.(IP)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(d.Addr == o.Addr)
}

// Type implements ref.Val.
func (d IP) Type() ref.Type { return IPType }

// Value implements ref.Val.
func (d IP) Value() any { return d.Addr }

// Size is the address length in bytes (what cost tracking sees).
func (d IP) Size() ref.Val { return types.Int(int(math.Ceil(float64(d.Addr.BitLen()) / 8))) }

// CIDR is the CEL value of cidr(string).
type CIDR struct{ netip.Prefix }

// ConvertToNative implements ref.Val.
func (d CIDR) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(d.Prefix).AssignableTo(typeDesc) {
		return d.Prefix, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return d.Prefix.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'CIDR' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (d CIDR) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case CIDRType:
		return d
	case types.TypeType:
		return CIDRType
	case types.StringType:
		return types.String(d.Prefix.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", CIDRType, typeVal)
}

// Equal implements ref.Val.
func (d CIDR) Equal(other ref.Val) ref.Val {
	o, ok := other.(CIDR)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(d.Prefix == o.Prefix)
}

// Type implements ref.Val.
func (d CIDR) Type() ref.Type { return CIDRType }

// Value implements ref.Val.
func (d CIDR) Value() any { return d.Prefix }

// Size is the prefix length in bytes, rounded up (what cost tracking sees).
func (d CIDR) Size() ref.Val { return types.Int(int(math.Ceil(float64(d.Prefix.Bits()) / 8))) }

// Quantity is the CEL value of quantity(string). The apiserver returns a value from quantity()
// and a pointer from add/sub; equality only accepts a value on the right-hand side
// (`a.add(b) == c` works, `c == a.add(b)` is "no such overload"), which Ptr reproduces.
type Quantity struct {
	Q   *Qty
	Ptr bool
}

// ConvertToNative implements ref.Val.
func (d Quantity) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(d.Q).AssignableTo(typeDesc) {
		return d.Q, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return d.Q.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (d Quantity) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case quantityTypeValue:
		return d
	case types.TypeType:
		return quantityTypeValue
	}
	return types.NewErr("type conversion error from '%s' to '%s'", quantityTypeValue, typeVal)
}

// Equal implements ref.Val.
func (d Quantity) Equal(other ref.Val) ref.Val {
	o, ok := other.(Quantity)
	if !ok || o.Ptr {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(d.Q.Cmp(o.Q) == 0)
}

// Type implements ref.Val.
func (d Quantity) Type() ref.Type { return quantityTypeValue }

// Value implements ref.Val.
func (d Quantity) Value() any { return d.Q }

// Semver is the CEL value of semver(string).
type Semver struct{ V SemverVersion }

// ConvertToNative implements ref.Val.
func (v Semver) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(v.V).AssignableTo(typeDesc) {
		return v.V, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return v.V.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Semver' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (v Semver) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case SemverType:
		return v
	case types.TypeType:
		return SemverType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", SemverType, typeVal)
}

// Equal implements ref.Val.
func (v Semver) Equal(other ref.Val) ref.Val {
	o, ok := other.(Semver)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.V.Compare(o.V) == 0)
}

// Type implements ref.Val.
func (v Semver) Type() ref.Type { return SemverType }

// Value implements ref.Val.
func (v Semver) Value() any { return v.V }

// Format is a named format of format.named() / format.dns1123Label() etc.
type Format struct {
	Name         string
	ValidateFunc func(string) []string
	MaxRegexSize int
}

// ConvertToNative implements ref.Val.
func (d Format) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'Format' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (d Format) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case FormatType:
		return d
	case types.TypeType:
		return FormatType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", FormatType, typeVal)
}

// Equal compares names.
func (d Format) Equal(other ref.Val) ref.Val {
	o, ok := other.(Format)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(d.Name == o.Name)
}

// Type implements ref.Val.
func (d Format) Type() ref.Type { return FormatType }

// Value implements ref.Val.
func (d Format) Value() any { return d }
