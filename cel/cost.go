package cel

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// CostEstimator prices the Kubernetes library functions, statically (checker.CostEstimator)
// and at run time (interpreter.ActualCostEstimator), with the apiserver's formulas
// (k8s.io/apiserver/pkg/cel/library.CostEstimator). SizeEstimator, when set, supplies the sizes
// of declared values (schema maxLength/maxItems for CRD rules).
type CostEstimator struct {
	SizeEstimator checker.CostEstimator
}

const (
	selectorLengthToRequirementCount = float64(.5)
	costPerRequirement               = float64(common.ListCreateBaseCost + common.StructCreateBaseCost)
)

var baseSelectorCost = checker.CostEstimate{Min: common.ListCreateBaseCost, Max: common.ListCreateBaseCost}

func selectorCostEstimate(selectorLength checker.SizeEstimate) checker.CostEstimate {
	parseCost := selectorLength.MultiplyByCostFactor(common.StringTraversalCostFactor)
	requirementCount := selectorLength.MultiplyByCostFactor(selectorLengthToRequirementCount)
	requirementCost := requirementCount.MultiplyByCostFactor(costPerRequirement)
	return baseSelectorCost.Add(parseCost).Add(requirementCost)
}

func ceilCost(f float64) *uint64 {
	c := uint64(math.Ceil(f))
	return &c
}

func unitCost() *uint64 {
	c := uint64(1)
	return &c
}

// CallCost is the runtime cost of one call.
func (l *CostEstimator) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	switch function {
	case "check":
		c := uint64(350000)
		return &c
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return unitCost()
	case "fieldSelector", "labelSelector":
		if len(args) >= 2 {
			n := actualSize(args[1])
			c := selectorCostEstimate(checker.SizeEstimate{Min: n, Max: n})
			return &c.Max
		}
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		var c uint64
		if len(args) > 0 {
			c += traversalCost(args[0])
		}
		return &c
	case "url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * common.StringTraversalCostFactor)
		}
	case "replace", "split":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * 2 * common.StringTraversalCostFactor)
		}
	case "join":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(result)) * 2 * common.StringTraversalCostFactor)
		}
	case "find", "findAll":
		if len(args) >= 2 {
			strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[0]))) * common.StringTraversalCostFactor))
			regexCost := uint64(math.Ceil(float64(actualSize(args[1])) * common.RegexStringLengthCostFactor))
			c := strCost * regexCost
			return &c
		}
	case "cidr", "isIP", "isCIDR":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * common.StringTraversalCostFactor)
		}
	case "ip":
		if len(args) >= 1 {
			if overloadID == "cidr_ip" {
				return unitCost()
			}
			return ceilCost(float64(actualSize(args[0])) * common.StringTraversalCostFactor)
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * 2 * common.StringTraversalCostFactor)
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast":
		return unitCost()
	case "containsIP":
		if len(args) >= 2 {
			cidrSize, otherSize := actualSize(args[0]), actualSize(args[1])
			c := uint64(math.Ceil(float64(cidrSize+cidrSize) * common.StringTraversalCostFactor))
			if overloadID == "cidr_contains_ip_string" {
				c += uint64(math.Ceil(float64(otherSize) * common.StringTraversalCostFactor))
			}
			return &c
		}
	case "containsCIDR":
		if len(args) >= 2 {
			cidrSize, otherSize := actualSize(args[0]), actualSize(args[1])
			c := uint64(math.Ceil(float64(cidrSize+cidrSize) * common.StringTraversalCostFactor))
			c += uint64(math.Ceil(float64(cidrSize)*common.StringTraversalCostFactor)) + 1
			if overloadID == "cidr_contains_cidr_string" {
				c += uint64(math.Ceil(float64(otherSize) * common.StringTraversalCostFactor))
			}
			return &c
		}
	case "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * common.StringTraversalCostFactor)
		}
	case "validate":
		if len(args) >= 2 {
			if f, ok := args[0].Value().(Format); ok {
				strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[1]))) * common.StringTraversalCostFactor))
				regexCost := uint64(math.Ceil(float64(f.MaxRegexSize) * common.RegexStringLengthCostFactor))
				c := strCost * regexCost
				return &c
			}
		}
	case "format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return unitCost()
	case "_==_":
		if len(args) == 2 {
			switch args[0].(type) {
			case Quantity, IP, CIDR, Format, URL, Semver, authorizerVal, pathCheckVal, groupCheckVal, resourceCheckVal, decisionVal:
				return unitCost()
			}
		}
	}
	return nil
}

// EstimateCallCost is the static cost estimate of one call.
func (l *CostEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	one := checker.CostEstimate{Min: 1, Max: 1}
	switch function {
	case "check":
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 350000, Max: 350000}}
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return &checker.CallEstimate{CostEstimate: one}
	case "fieldSelector", "labelSelector":
		if len(args) == 1 {
			return &checker.CallEstimate{CostEstimate: selectorCostEstimate(l.sizeEstimate(args[0]))}
		}
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		if target != nil {
			elCost := one
			if elNode := l.listElementNode(*target); elNode != nil {
				k := elNode.Type().Kind()
				if k == types.StringKind || k == types.BytesKind {
					sz := l.sizeEstimate(elNode)
					elCost = elCost.Add(sz.MultiplyByCostFactor(common.StringTraversalCostFactor))
				}
				return &checker.CallEstimate{CostEstimate: l.sizeEstimate(*target).MultiplyByCost(elCost)}
			} else if function == "includes" {
				return &checker.CallEstimate{CostEstimate: l.sizeEstimate(*target).MultiplyByCost(elCost)}
			}
			return &checker.CallEstimate{CostEstimate: l.sizeEstimate(*target).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "url", "jsonpatch.escapeKey":
		if len(args) == 1 {
			sz := l.sizeEstimate(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := l.sizeEstimate(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			sz := l.sizeEstimate(*target)
			toReplaceSz := l.sizeEstimate(args[0])
			replaceWithSz := l.sizeEstimate(args[1])
			var replaceCount, retainedSz checker.SizeEstimate
			if toReplaceSz.Min == 0 {
				if sz.Max < math.MaxUint64 {
					replaceCount.Max = sz.Max + 1
				} else {
					replaceCount.Max = sz.Max
				}
				retainedSz.Max = sz.Max
			} else if replaceWithSz.Max <= toReplaceSz.Min {
				replaceCount.Max = 0
				retainedSz.Max = sz.Max
			} else {
				replaceCount.Max = uint64(math.Ceil(float64(sz.Max) / float64(toReplaceSz.Min)))
			}
			if toReplaceSz.Max == 0 {
				if sz.Min < math.MaxUint64 {
					replaceCount.Min = sz.Min + 1
				} else {
					replaceCount.Min = sz.Min
				}
				retainedSz.Min = sz.Min
			} else if toReplaceSz.Max <= replaceWithSz.Min {
				replaceCount.Min = 0
				retainedSz.Min = sz.Min
			} else {
				replaceCount.Min = uint64(math.Ceil(float64(sz.Min) / float64(toReplaceSz.Max)))
			}
			size := replaceCount.Multiply(replaceWithSz).Add(retainedSz)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * common.StringTraversalCostFactor), ResultSize: &size}
		}
	case "split":
		if target != nil {
			sz := l.sizeEstimate(*target)
			maxN := sz.Max
			if len(args) > 1 {
				if v := args[1].Expr().AsLiteral(); v != nil {
					if i, ok := v.Value().(int64); ok {
						maxN = uint64(i)
					}
				}
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * common.StringTraversalCostFactor), ResultSize: &checker.SizeEstimate{Min: 0, Max: maxN}}
		}
	case "join":
		if target != nil {
			var sz checker.SizeEstimate
			listSize := l.sizeEstimate(*target)
			if elNode := l.listElementNode(*target); elNode != nil {
				sz = listSize.Multiply(l.sizeEstimate(elNode))
			}
			if len(args) > 0 {
				sepSize := l.sizeEstimate(args[0])
				minSep, maxSep := uint64(0), uint64(0)
				if listSize.Min > 0 {
					minSep = listSize.Min - 1
				}
				if listSize.Max > 0 {
					maxSep = listSize.Max - 1
				}
				sz = sz.Add(sepSize.Multiply(checker.SizeEstimate{Min: minSep, Max: maxSep}))
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
		}
	case "find", "findAll":
		if target != nil && len(args) >= 1 {
			sz := l.sizeEstimate(*target)
			strCost := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(common.StringTraversalCostFactor)
			regexCost := l.sizeEstimate(args[0]).MultiplyByCostFactor(common.RegexStringLengthCostFactor)
			return &checker.CallEstimate{CostEstimate: strCost.Multiply(regexCost), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
		}
	case "cidr", "isIP", "isCIDR":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: l.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "ip":
		if overloadID == "cidr_ip" {
			return &checker.CallEstimate{CostEstimate: one}
		}
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: l.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: l.sizeEstimate(args[0]).MultiplyByCostFactor(2 * common.StringTraversalCostFactor)}
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast":
		return &checker.CallEstimate{CostEstimate: one}
	case "containsIP":
		if len(args) >= 1 {
			sz := checker.SizeEstimate{Min: 4, Max: 16}
			c := sz.Add(sz).MultiplyByCostFactor(common.StringTraversalCostFactor)
			if overloadID == "cidr_contains_ip_string" {
				c = c.Add(checker.CostEstimate(l.sizeEstimate(args[0])).MultiplyByCostFactor(common.StringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "containsCIDR":
		if len(args) >= 1 {
			sz := checker.SizeEstimate{Min: 4, Max: 16}
			c := sz.Add(sz).MultiplyByCostFactor(common.StringTraversalCostFactor)
			c = c.Add(sz.MultiplyByCostFactor(common.StringTraversalCostFactor))
			c = c.Add(one)
			if overloadID == "cidr_contains_cidr_string" {
				c = c.Add(checker.CostEstimate(l.sizeEstimate(args[0])).MultiplyByCostFactor(common.StringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: l.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "validate":
		if len(args) >= 1 {
			sz := l.sizeEstimate(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor).MultiplyByCostFactor(MaxNameFormatRegexSize * common.RegexStringLengthCostFactor)}
		}
	case "format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return &checker.CallEstimate{CostEstimate: one}
	case "_==_":
		if len(args) == 2 {
			lhs, rhs := args[0], args[1]
			if lhs.Type().Equal(rhs.Type()) == types.True {
				t := lhs.Type()
				if t.Kind() == types.OpaqueKind {
					switch t.TypeName() {
					case IPType.TypeName(), CIDRType.TypeName():
						return &checker.CallEstimate{CostEstimate: one}
					}
				}
				if t.Kind() == types.StructKind {
					switch t {
					case QuantityType, AuthorizerType, PathCheckType, GroupCheckType, ResourceCheckType, DecisionType, SemverType:
						return &checker.CallEstimate{CostEstimate: one}
					case FormatType:
						return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: MaxFormatSize}.MultiplyByCostFactor(common.StringTraversalCostFactor)}
					case URLType:
						size := checker.SizeEstimate{Min: 1, Max: 1}
						// The apiserver takes both sizes from the right-hand side.
						rh, lh := rhs.ComputedSize(), rhs.ComputedSize()
						if rh != nil && lh != nil {
							size = rh.Union(*lh)
						}
						return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: size.Max}.MultiplyByCostFactor(common.StringTraversalCostFactor)}
					}
				}
			}
		}
	}
	return nil
}

func actualSize(v ref.Val) uint64 {
	if sz, ok := v.(traits.Sizer); ok {
		return uint64(sz.Size().(types.Int))
	}
	return 1
}

func (l *CostEstimator) sizeEstimate(t checker.AstNode) checker.SizeEstimate {
	if sz := t.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := l.EstimateSize(t); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

func (l *CostEstimator) listElementNode(list checker.AstNode) checker.AstNode {
	if params := list.Type().Parameters(); len(params) > 0 {
		lt := params[0]
		if p := list.Path(); p != nil {
			path := make([]string, len(p)+1)
			copy(path, p)
			path[len(p)] = "@items"
			return &itemsNode{path: path, t: lt}
		}
		return &itemsNode{t: lt}
	}
	return nil
}

// EstimateSize delegates to SizeEstimator.
func (l *CostEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	if l.SizeEstimator != nil {
		return l.SizeEstimator.EstimateSize(element)
	}
	return nil
}

type itemsNode struct {
	path []string
	t    *types.Type
	expr ast.Expr
}

func (i *itemsNode) Path() []string                      { return i.path }
func (i *itemsNode) Type() *types.Type                   { return i.t }
func (i *itemsNode) Expr() ast.Expr                      { return i.expr }
func (i *itemsNode) ComputedSize() *checker.SizeEstimate { return nil }

func traversalCost(v ref.Val) uint64 {
	switch vt := v.(type) {
	case types.String:
		return uint64(float64(len(string(vt))) * common.StringTraversalCostFactor)
	case types.Bytes:
		return uint64(float64(len([]byte(vt))) * common.StringTraversalCostFactor)
	case traits.Lister:
		c := uint64(0)
		for it := vt.Iterator(); it.HasNext() == types.True; {
			c += traversalCost(it.Next())
		}
		return c
	case traits.Mapper:
		c := uint64(0)
		for it := vt.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			c += traversalCost(k) + traversalCost(vt.Get(k))
		}
		return c
	}
	return 1
}
