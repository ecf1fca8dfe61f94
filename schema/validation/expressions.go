package validation

// The CEL expressions of admission configurations (ValidatingAdmissionPolicy,
// MutatingAdmissionPolicy, the webhooks' match conditions) are compiled by their strategies'
// validation with the apiserver's CEL environment. This package sits below package cel, so the
// compiler is passed in (Options.Expressions): registry hands it admission's, which builds the
// apiserver's admission environments. With no compiler, expressions are checked for presence
// only, as if every one compiled.

// ExpressionCompiler compiles the expressions of one admission configuration.
type ExpressionCompiler interface {
	// Scope returns the compiler of one policy's expressions. composited says whether the
	// policy's compiler declares `variables` (plugin/cel's composited compiler: a policy with
	// variables, every MutatingAdmissionPolicy); a scope without it compiles as the
	// stateless compiler, where `variables` is undeclared.
	Scope(composited bool) ExpressionScope
	// DeviceSelector compiles a device selector of resource.k8s.io (a DeviceClass's, a
	// request's) as a new expression in the DRA environment (k8s.io/dynamic-resource-allocation/cel
	// under 1.37's default gates).
	DeviceSelector(expression string) DeviceSelectorResult
}

// DeviceSelectorResult is the outcome of compiling a device selector.
type DeviceSelectorResult struct {
	// Err is the compilation error's detail, "" when the expression compiles; Internal says it
	// is an internal error (field.InternalError), not an invalid expression.
	Err      string
	Internal bool
	// MaxCost is the estimated worst-case cost.
	MaxCost uint64
}

// ExpressionScope compiles the expressions of one policy: a variable stored with Variable is
// visible, with the type its expression compiled to, to the expressions compiled after it.
type ExpressionScope interface {
	// Compile compiles e and returns the apiserver's compilation error ("compilation failed:
	// ...", "must evaluate to bool but got int"), "" when e compiles.
	Compile(e Expression) string
	// Variable compiles e as the variable name and declares it (with the type dyn when it
	// does not compile) for what the scope compiles next.
	Variable(name string, e Expression) string
}

// Expression is one CEL expression and the declarations of its environment
// (plugin/cel.OptionalVariableDeclarations and the environment type).
type Expression struct {
	Text string
	// Returns is what the expression must evaluate to.
	Returns ExpressionResult
	// Params declares `params`; Authorizer declares `authorizer` and
	// `authorizer.requestResource`; PatchTypes the MutatingAdmissionPolicy types Object and
	// JSONPatch and jsonpatch.escapeKey.
	Params, Authorizer, PatchTypes bool
	// Stored compiles in the stored-expressions environment (every library of the
	// apiserver's version): the expression is unchanged from the stored object. Otherwise the
	// new-expressions environment (the compatibility version).
	Stored bool
}

// ExpressionResult is the output type an expression must have.
type ExpressionResult int

const (
	// ResultAny: a variable.
	ResultAny ExpressionResult = iota
	// ResultBool: a validation's expression, a match condition.
	ResultBool
	// ResultString: a validation's messageExpression.
	ResultString
	// ResultStringOrNull: an audit annotation's valueExpression.
	ResultStringOrNull
	// ResultApplyConfiguration: an Object (a mutation's applyConfiguration).
	ResultApplyConfiguration
	// ResultJSONPatch: a list of JSONPatch (a mutation's jsonPatch).
	ResultJSONPatch
)

// compileScope is the scope of one policy under opts: the compiler's, or none.
func compileScope(opts Options, composited bool) ExpressionScope {
	if opts.Expressions == nil {
		return nil
	}
	return opts.Expressions.Scope(composited)
}
