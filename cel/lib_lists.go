package cel

import (
	"fmt"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// listsLib is the kubernetes.lists library (isSorted, sum, min, max, indexOf, lastIndexOf, and
// from version 1 includes).
type listsLib struct{ version uint32 }

func (*listsLib) LibraryName() string { return "kubernetes.lists" }

var paramA = celgo.TypeParamType("A")

type namedType struct {
	name string
	t    *celgo.Type
}

var summableTypes = []namedType{
	{"int", celgo.IntType}, {"uint", celgo.UintType}, {"double", celgo.DoubleType}, {"duration", celgo.DurationType},
}

var comparableTypes = []namedType{
	{"int", celgo.IntType}, {"uint", celgo.UintType}, {"double", celgo.DoubleType}, {"bool", celgo.BoolType},
	{"duration", celgo.DurationType}, {"timestamp", celgo.TimestampType}, {"string", celgo.StringType}, {"bytes", celgo.BytesType},
}

func zeroOf(name string) ref.Val {
	switch name {
	case "int":
		return types.Int(0)
	case "uint":
		return types.Uint(0)
	case "double":
		return types.Double(0)
	default:
		return types.Duration{}
	}
}

func (l *listsLib) CompileOptions() []celgo.EnvOption {
	var isSorted, sum, maxO, minO []celgo.FunctionOpt
	for _, t := range comparableTypes {
		isSorted = append(isSorted, celgo.MemberOverload(fmt.Sprintf("list_%s_is_sorted_bool", t.name),
			[]*celgo.Type{celgo.ListType(t.t)}, celgo.BoolType, celgo.UnaryBinding(listIsSorted)))
		maxO = append(maxO, celgo.MemberOverload(fmt.Sprintf("list_%s_max_%s", t.name, t.name),
			[]*celgo.Type{celgo.ListType(t.t)}, t.t, celgo.UnaryBinding(listCmp("max", types.IntNegOne))))
		minO = append(minO, celgo.MemberOverload(fmt.Sprintf("list_%s_min_%s", t.name, t.name),
			[]*celgo.Type{celgo.ListType(t.t)}, t.t, celgo.UnaryBinding(listCmp("min", types.IntOne))))
	}
	for _, t := range summableTypes {
		name := t.name
		sum = append(sum, celgo.MemberOverload(fmt.Sprintf("list_%s_sum_%s", name, name),
			[]*celgo.Type{celgo.ListType(t.t)}, t.t, celgo.UnaryBinding(func(v ref.Val) ref.Val { return listSum(zeroOf(name), v) })))
	}
	opts := []celgo.EnvOption{
		celgo.Function("isSorted", isSorted...),
		celgo.Function("sum", sum...),
		celgo.Function("max", maxO...),
		celgo.Function("min", minO...),
		celgo.Function("indexOf", celgo.MemberOverload("list_a_index_of_int", []*celgo.Type{celgo.ListType(paramA), paramA}, celgo.IntType,
			celgo.BinaryBinding(listIndexOf))),
		celgo.Function("lastIndexOf", celgo.MemberOverload("list_a_last_index_of_int", []*celgo.Type{celgo.ListType(paramA), paramA}, celgo.IntType,
			celgo.BinaryBinding(listLastIndexOf))),
	}
	if l.version >= 1 {
		opts = append(opts, celgo.Function("includes", celgo.MemberOverload("list_includes_dyn_dyn",
			[]*celgo.Type{celgo.DynType, celgo.DynType}, celgo.BoolType, celgo.BinaryBinding(listIncludes))))
	}
	return opts
}

func (*listsLib) ProgramOptions() []celgo.ProgramOption { return nil }

func listIsSorted(val ref.Val) ref.Val {
	var prev traits.Comparer
	iterable, ok := val.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(val)
	}
	for it := iterable.Iterator(); it.HasNext() == types.True; {
		next := it.Next()
		nextCmp, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if prev != nil && prev.Compare(next) == types.IntOne {
			return types.False
		}
		prev = nextCmp
	}
	return types.True
}

func listSum(init ref.Val, val ref.Val) ref.Val {
	acc, ok := init.(traits.Adder)
	if !ok {
		return types.MaybeNoSuchOverloadErr(init)
	}
	iterable, ok := val.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(val)
	}
	for it := iterable.Iterator(); it.HasNext() == types.True; {
		next := it.Next()
		if _, ok := next.(traits.Adder); !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		s := acc.Add(next)
		sum, ok := s.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(s)
		}
		acc = sum
	}
	return acc.(ref.Val)
}

func listCmp(opName string, prefer ref.Val) func(ref.Val) ref.Val {
	return func(val ref.Val) ref.Val {
		var result traits.Comparer
		iterable, ok := val.(traits.Iterable)
		if !ok {
			return types.MaybeNoSuchOverloadErr(val)
		}
		for it := iterable.Iterator(); it.HasNext() == types.True; {
			next := it.Next()
			nextCmp, ok := next.(traits.Comparer)
			if !ok {
				return types.MaybeNoSuchOverloadErr(next)
			}
			if result == nil {
				result = nextCmp
			} else if result.Compare(next) == prefer {
				result = nextCmp
			}
		}
		if result == nil {
			return types.NewErr("%s called on empty list", opName)
		}
		return result.(ref.Val)
	}
}

func listIndexOf(list, item ref.Val) ref.Val {
	lister, ok := list.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	sz := lister.Size().(types.Int)
	for i := types.Int(0); i < sz; i++ {
		if lister.Get(i).Equal(item) == types.True {
			return i
		}
	}
	return types.Int(-1)
}

func listLastIndexOf(list, item ref.Val) ref.Val {
	lister, ok := list.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	sz := lister.Size().(types.Int)
	for i := sz - 1; i >= 0; i-- {
		if lister.Get(i).Equal(item) == types.True {
			return i
		}
	}
	return types.Int(-1)
}

func listIncludes(target, arg ref.Val) ref.Val {
	if list, ok := target.(traits.Lister); ok {
		for it := list.Iterator(); it.HasNext() == types.True; {
			if it.Next().Equal(arg) == types.True {
				return types.True
			}
		}
		return types.False
	}
	if target.Equal(arg) == types.True {
		return types.True
	}
	return types.False
}
