package cel

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// regexLib is kubernetes.regex: find and findAll (RE2, linear time).
type regexLib struct{}

func (*regexLib) LibraryName() string { return "kubernetes.regex" }

func (*regexLib) CompileOptions() []celgo.EnvOption {
	return []celgo.EnvOption{
		celgo.Function("find", celgo.MemberOverload("string_find_string", []*celgo.Type{celgo.StringType, celgo.StringType}, celgo.StringType,
			celgo.BinaryBinding(regexFind))),
		celgo.Function("findAll",
			celgo.MemberOverload("string_find_all_string", []*celgo.Type{celgo.StringType, celgo.StringType}, celgo.ListType(celgo.StringType),
				celgo.BinaryBinding(func(str, re ref.Val) ref.Val { return regexFindAll(str, re, types.Int(-1)) })),
			celgo.MemberOverload("string_find_all_string_int", []*celgo.Type{celgo.StringType, celgo.StringType, celgo.IntType}, celgo.ListType(celgo.StringType),
				celgo.FunctionBinding(regexFindAll))),
	}
}

func (*regexLib) ProgramOptions() []celgo.ProgramOption {
	return []celgo.ProgramOption{celgo.OptimizeRegex(findOptimization, findAllOptimization)}
}

func regexFind(strVal, regexVal ref.Val) ref.Val {
	str, ok := strVal.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(strVal)
	}
	pattern, ok := regexVal.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(regexVal)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return types.NewErr("Illegal regex: %v", err.Error())
	}
	return types.String(re.FindString(str))
}

func regexFindAll(args ...ref.Val) ref.Val {
	if len(args) < 2 || len(args) > 3 {
		return types.NoSuchOverloadErr()
	}
	str, ok := args[0].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	pattern, ok := args[1].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[1])
	}
	n := int64(-1)
	if len(args) == 3 {
		if n, ok = args[2].Value().(int64); !ok {
			return types.MaybeNoSuchOverloadErr(args[2])
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return types.NewErr("Illegal regex: %v", err.Error())
	}
	return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(str, int(n)))
}

// The constant-pattern forms compile the regex once, at program planning (as the apiserver).
var findOptimization = &interpreter.RegexOptimization{
	Function:   "find",
	RegexIndex: 1,
	Factory: func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			if len(args) != 2 {
				return types.NoSuchOverloadErr()
			}
			in, ok := args[0].Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[0])
			}
			return types.String(re.FindString(in))
		}), nil
	},
}

var findAllOptimization = &interpreter.RegexOptimization{
	Function:   "findAll",
	RegexIndex: 1,
	Factory: func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			if len(args) < 2 || len(args) > 3 {
				return types.NoSuchOverloadErr()
			}
			str, ok := args[0].Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[0])
			}
			n := int64(-1)
			if len(args) == 3 {
				if n, ok = args[2].Value().(int64); !ok {
					return types.MaybeNoSuchOverloadErr(args[2])
				}
			}
			return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(str, int(n)))
		}), nil
	},
}

// urlsLib is kubernetes.urls.
type urlsLib struct{}

func (*urlsLib) LibraryName() string { return "kubernetes.urls" }

func urlGetter(name, id string, f func(*url.URL) ref.Val, result *celgo.Type) celgo.EnvOption {
	return celgo.Function(name, celgo.MemberOverload(id, []*celgo.Type{URLType}, result, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
		u, ok := arg.Value().(*url.URL)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(u)
	})))
}

func (*urlsLib) CompileOptions() []celgo.EnvOption {
	return []celgo.EnvOption{
		celgo.Function("url", celgo.Overload("string_to_url", []*celgo.Type{celgo.StringType}, URLType, celgo.UnaryBinding(stringToURL))),
		urlGetter("getScheme", "url_get_scheme", func(u *url.URL) ref.Val { return types.String(u.Scheme) }, celgo.StringType),
		urlGetter("getHost", "url_get_host", func(u *url.URL) ref.Val { return types.String(u.Host) }, celgo.StringType),
		urlGetter("getHostname", "url_get_hostname", func(u *url.URL) ref.Val { return types.String(u.Hostname()) }, celgo.StringType),
		urlGetter("getPort", "url_get_port", func(u *url.URL) ref.Val { return types.String(u.Port()) }, celgo.StringType),
		urlGetter("getEscapedPath", "url_get_escaped_path", func(u *url.URL) ref.Val { return types.String(u.EscapedPath()) }, celgo.StringType),
		urlGetter("getQuery", "url_get_query", func(u *url.URL) ref.Val {
			result := map[ref.Val]ref.Val{}
			for k, v := range u.Query() {
				result[types.String(k)] = types.NewStringList(types.DefaultTypeAdapter, v)
			}
			return types.NewRefValMap(types.DefaultTypeAdapter, result)
		}, celgo.MapType(celgo.StringType, celgo.ListType(celgo.StringType))),
		celgo.Function("isURL", celgo.Overload("is_url_string", []*celgo.Type{celgo.StringType}, celgo.BoolType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			_, err := url.ParseRequestURI(s)
			return types.Bool(err == nil)
		}))),
	}
}

func (*urlsLib) ProgramOptions() []celgo.ProgramOption { return nil }

func stringToURL(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	if _, err := url.ParseRequestURI(s); err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	u, err := url.Parse(s)
	if err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	return URL{URL: u}
}

// ipLib is kubernetes.net.ip.
type ipLib struct{}

func (*ipLib) LibraryName() string { return "kubernetes.net.ip" }

func ipMember(name, id string, result *celgo.Type, f func(IP) ref.Val) celgo.EnvOption {
	return celgo.Function(name, celgo.MemberOverload(id, []*celgo.Type{IPType}, result, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
		ip, ok := arg.(IP)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(ip)
	})))
}

func (*ipLib) CompileOptions() []celgo.EnvOption {
	return []celgo.EnvOption{
		celgo.Types(IPType),
		celgo.Function("ip", celgo.Overload("string_to_ip", []*celgo.Type{celgo.StringType}, IPType, celgo.UnaryBinding(stringToIP))),
		ipMember("family", "ip_family", celgo.IntType, func(ip IP) ref.Val {
			switch {
			case ip.Addr.Is4():
				return types.Int(4)
			case ip.Addr.Is6():
				return types.Int(6)
			}
			return types.NewErr("IP address %q is not an IPv4 or IPv6 address", ip.Addr.String())
		}),
		celgo.Function("ip.isCanonical", celgo.Overload("ip_is_canonical", []*celgo.Type{celgo.StringType}, celgo.BoolType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			addr, err := parseIPAddr(s)
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Bool(addr.String() == s)
		}))),
		ipMember("isUnspecified", "ip_is_unspecified", celgo.BoolType, func(ip IP) ref.Val { return types.Bool(ip.Addr.IsUnspecified()) }),
		ipMember("isLoopback", "ip_is_loopback", celgo.BoolType, func(ip IP) ref.Val { return types.Bool(ip.Addr.IsLoopback()) }),
		ipMember("isLinkLocalMulticast", "ip_is_link_local_multicast", celgo.BoolType, func(ip IP) ref.Val { return types.Bool(ip.Addr.IsLinkLocalMulticast()) }),
		ipMember("isLinkLocalUnicast", "ip_is_link_local_unicast", celgo.BoolType, func(ip IP) ref.Val { return types.Bool(ip.Addr.IsLinkLocalUnicast()) }),
		ipMember("isGlobalUnicast", "ip_is_global_unicast", celgo.BoolType, func(ip IP) ref.Val { return types.Bool(ip.Addr.IsGlobalUnicast()) }),
		celgo.Function("isIP", celgo.Overload("is_ip", []*celgo.Type{celgo.StringType}, celgo.BoolType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			_, err := parseIPAddr(s)
			return types.Bool(err == nil)
		}))),
		celgo.Function("string", celgo.Overload("ip_to_string", []*celgo.Type{IPType}, celgo.StringType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			ip, ok := arg.(IP)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return types.String(ip.Addr.String())
		}))),
	}
}

func (*ipLib) ProgramOptions() []celgo.ProgramOption { return nil }

func stringToIP(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	addr, err := parseIPAddr(s)
	if err != nil {
		return types.NewErr("%v", err)
	}
	return IP{Addr: addr}
}

func parseIPAddr(raw string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(raw)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", raw, err)
	}
	if addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", raw)
	}
	if addr.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return addr, nil
}

// cidrLib is kubernetes.net.cidr.
type cidrLib struct{}

func (*cidrLib) LibraryName() string { return "kubernetes.net.cidr" }

func (*cidrLib) CompileOptions() []celgo.EnvOption {
	return []celgo.EnvOption{
		celgo.Types(CIDRType),
		celgo.Function("cidr", celgo.Overload("string_to_cidr", []*celgo.Type{celgo.StringType}, CIDRType, celgo.UnaryBinding(stringToCIDR))),
		celgo.Function("containsIP",
			celgo.MemberOverload("cidr_contains_ip_string", []*celgo.Type{CIDRType, celgo.StringType}, celgo.BoolType,
				celgo.BinaryBinding(func(a, o ref.Val) ref.Val { return cidrContainsIP(a, stringToIP(o)) })),
			celgo.MemberOverload("cidr_contains_ip_ip", []*celgo.Type{CIDRType, IPType}, celgo.BoolType, celgo.BinaryBinding(cidrContainsIP))),
		celgo.Function("containsCIDR",
			celgo.MemberOverload("cidr_contains_cidr_string", []*celgo.Type{CIDRType, celgo.StringType}, celgo.BoolType,
				celgo.BinaryBinding(func(a, o ref.Val) ref.Val { return cidrContainsCIDR(a, stringToCIDR(o)) })),
			celgo.MemberOverload("cidr_contains_cidr", []*celgo.Type{CIDRType, CIDRType}, celgo.BoolType, celgo.BinaryBinding(cidrContainsCIDR))),
		celgo.Function("ip", celgo.MemberOverload("cidr_ip", []*celgo.Type{CIDRType}, IPType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			c, ok := arg.(CIDR)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return IP{Addr: c.Prefix.Addr()}
		}))),
		celgo.Function("prefixLength", celgo.MemberOverload("cidr_prefix_length", []*celgo.Type{CIDRType}, celgo.IntType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			c, ok := arg.(CIDR)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return types.Int(c.Prefix.Bits())
		}))),
		celgo.Function("masked", celgo.MemberOverload("cidr_masked", []*celgo.Type{CIDRType}, CIDRType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			c, ok := arg.(CIDR)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return CIDR{Prefix: c.Prefix.Masked()}
		}))),
		celgo.Function("isCIDR", celgo.Overload("is_cidr", []*celgo.Type{celgo.StringType}, celgo.BoolType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			_, err := parseCIDR(s)
			return types.Bool(err == nil)
		}))),
		celgo.Function("string", celgo.Overload("cidr_to_string", []*celgo.Type{CIDRType}, celgo.StringType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			c, ok := arg.(CIDR)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return types.String(c.Prefix.String())
		}))),
	}
}

func (*cidrLib) ProgramOptions() []celgo.ProgramOption { return nil }

func stringToCIDR(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	p, err := parseCIDR(s)
	if err != nil {
		return types.NewErr("network address parse error during conversion from string: %v", err)
	}
	return CIDR{Prefix: p}
}

// cidrContainsIP keeps the apiserver's argument order in its no-such-overload errors.
func cidrContainsIP(arg, other ref.Val) ref.Val {
	c, ok := arg.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	ip, ok := other.(IP)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.Bool(c.Contains(ip.Addr))
}

func cidrContainsCIDR(arg, other ref.Val) ref.Val {
	c, ok := arg.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	o, ok := other.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(c.Overlaps(o.Prefix) && c.Prefix.Bits() <= o.Prefix.Bits())
}

func parseCIDR(raw string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(raw)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return p, nil
}

// quantityLib is kubernetes.quantity.
type quantityLib struct{}

func (*quantityLib) LibraryName() string { return "kubernetes.quantity" }

func qtyOf(v ref.Val) (*Qty, bool) {
	q, ok := v.Value().(*Qty)
	return q, ok
}

func qtyBinary(f func(a, b *Qty) ref.Val) func(a, b ref.Val) ref.Val {
	return func(arg, other ref.Val) ref.Val {
		q, ok := qtyOf(arg)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		q2, ok := qtyOf(other)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(q, q2)
	}
}

func qtyArith(f func(a, b *Qty) (*Qty, error)) func(a, b *Qty) ref.Val {
	return func(a, b *Qty) ref.Val {
		r, err := f(a, b)
		if err != nil {
			return types.WrapErr(err)
		}
		return Quantity{Q: r, Ptr: true}
	}
}

func qtyArithInt(f func(a, b *Qty) (*Qty, error)) func(a, b ref.Val) ref.Val {
	return func(arg, other ref.Val) ref.Val {
		q, ok := qtyOf(arg)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		i, ok := other.Value().(int64)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return qtyArith(f)(q, QtyFromInt64(i))
	}
}

func qtyUnary(f func(*Qty) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		q, ok := qtyOf(arg)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(q)
	}
}

func (*quantityLib) CompileOptions() []celgo.EnvOption {
	Q := QuantityType
	return []celgo.EnvOption{
		celgo.Function("quantity", celgo.Overload("string_to_quantity", []*celgo.Type{celgo.StringType}, Q, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			q, err := ParseQuantity(s)
			if err != nil {
				return types.WrapErr(err)
			}
			return Quantity{Q: q}
		}))),
		celgo.Function("isQuantity", celgo.Overload("is_quantity_string", []*celgo.Type{celgo.StringType}, celgo.BoolType, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			_, err := ParseQuantity(s)
			return types.Bool(err == nil)
		}))),
		celgo.Function("sign", celgo.Overload("quantity_sign", []*celgo.Type{Q}, celgo.IntType, celgo.UnaryBinding(qtyUnary(func(q *Qty) ref.Val { return types.Int(q.Sign()) })))),
		celgo.Function("isGreaterThan", celgo.MemberOverload("quantity_is_greater_than", []*celgo.Type{Q, Q}, celgo.BoolType,
			celgo.BinaryBinding(qtyBinary(func(a, b *Qty) ref.Val { return types.Bool(a.Cmp(b) == 1) })))),
		celgo.Function("isLessThan", celgo.MemberOverload("quantity_is_less_than", []*celgo.Type{Q, Q}, celgo.BoolType,
			celgo.BinaryBinding(qtyBinary(func(a, b *Qty) ref.Val { return types.Bool(a.Cmp(b) == -1) })))),
		celgo.Function("compareTo", celgo.MemberOverload("quantity_compare_to", []*celgo.Type{Q, Q}, celgo.IntType,
			celgo.BinaryBinding(qtyBinary(func(a, b *Qty) ref.Val { return types.Int(a.Cmp(b)) })))),
		celgo.Function("asApproximateFloat", celgo.MemberOverload("quantity_get_float", []*celgo.Type{Q}, celgo.DoubleType,
			celgo.UnaryBinding(qtyUnary(func(q *Qty) ref.Val { return types.Double(q.AsApproximateFloat64()) })))),
		celgo.Function("asInteger", celgo.MemberOverload("quantity_get_int", []*celgo.Type{Q}, celgo.IntType,
			celgo.UnaryBinding(qtyUnary(func(q *Qty) ref.Val {
				v, ok := q.AsInt64()
				if !ok {
					return types.WrapErr(errors.New("cannot convert value to integer"))
				}
				return types.Int(v)
			})))),
		celgo.Function("isInteger", celgo.MemberOverload("quantity_is_integer", []*celgo.Type{Q}, celgo.BoolType,
			celgo.UnaryBinding(qtyUnary(func(q *Qty) ref.Val { _, ok := q.AsInt64(); return types.Bool(ok) })))),
		celgo.Function("add",
			celgo.MemberOverload("quantity_add", []*celgo.Type{Q, Q}, Q, celgo.BinaryBinding(qtyBinary(qtyArith((*Qty).Add)))),
			celgo.MemberOverload("quantity_add_int", []*celgo.Type{Q, celgo.IntType}, Q, celgo.BinaryBinding(qtyArithInt((*Qty).Add)))),
		celgo.Function("sub",
			celgo.MemberOverload("quantity_sub", []*celgo.Type{Q, Q}, Q, celgo.BinaryBinding(qtyBinary(qtyArith((*Qty).Sub)))),
			celgo.MemberOverload("quantity_sub_int", []*celgo.Type{Q, celgo.IntType}, Q, celgo.BinaryBinding(qtyArithInt((*Qty).Sub)))),
	}
}

func (*quantityLib) ProgramOptions() []celgo.ProgramOption { return nil }
