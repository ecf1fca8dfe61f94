package cel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

const (
	selfVar    = "self"
	oldSelfVar = "oldSelf"
	// checkFrequency is how often comprehensions check for cancellation (celconfig.CheckFrequency).
	checkFrequency = 100
	// maxMessageExpressionSize bounds an evaluated messageExpression.
	maxMessageExpressionSize = 5 * 1024
	// selfTypeName names the object types of a rule's self. The apiserver appends the clock's
	// nanoseconds ("selfType123456789"); writepath uses a fixed suffix so that messages are
	// reproducible.
	selfTypeName = "selfType0"
)

// ruleErrType classifies compilation errors (apiserver cel.ErrorType).
type ruleErrType string

const (
	errTypeInvalid  ruleErrType = "RuleInvalid"
	errTypeInternal ruleErrType = "InternalError"
	errTypeRequired ruleErrType = "RuleRequired"
)

type ruleError struct {
	Type   ruleErrType
	Detail string
}

func (e *ruleError) Error() string { return e.Detail }

// compiled is the compilation result of one rule (apiextensions' CompilationResult).
type compiled struct {
	program                  celgo.Program
	err                      *ruleError
	usesOldSelf              bool
	maxCost                  uint64
	maxCardinality           uint64
	messageExpression        celgo.Program
	messageExpressionErr     *ruleError
	messageExpressionMaxCost uint64
	normalizedFieldPath      string
}

// preexisting holds the expressions of a CRD before an update (apiextensions'
// preexistingExpressions): the apiserver compiles those with the newest (stored expressions)
// environment, every other expression with the compatibility version's.
type preexisting struct {
	rules, messageExpressions map[string]bool
}

// storedVersion is the version of the apiserver's stored expressions environment: every
// library it knows that has not been removed.
var storedVersion = V1_37

// ruleEnvs builds the environments of one node's rules: oldSelf typed as self, and oldSelf
// optional (optionalOldSelf: true).
func ruleEnvs(version Version, declType *DeclType) (oldSelfEnv, optionalOldSelfEnv *celgo.Env, err error) {
	base, err := BaseEnv(version)
	if err != nil {
		return nil, nil, err
	}
	scoped := declType.withTypeName(selfTypeName)
	provider := NewDeclTypeProvider(base.CELTypeProvider(), version.Minor >= 31, scoped)
	oldSelfEnv, err = base.Extend(
		celgo.CustomTypeProvider(provider),
		celgo.Variable(selfVar, scoped.celType),
		celgo.Variable(oldSelfVar, scoped.celType),
	)
	if err != nil {
		return nil, nil, err
	}
	optionalOldSelfEnv, err = base.Extend(
		celgo.CustomTypeProvider(provider),
		celgo.Variable(selfVar, scoped.celType),
		celgo.Variable(oldSelfVar, types.NewOptionalType(scoped.celType)),
	)
	if err != nil {
		return nil, nil, err
	}
	return oldSelfEnv, optionalOldSelfEnv, nil
}

// compileRules compiles the rules of one schema node against its CEL type, with the
// environment of version, or for the expressions in pre (when not nil) the stored expressions
// environment.
func compileRules(s *schema.Structural, rules []Rule, declType *DeclType, perCallLimit uint64, version Version, pre *preexisting) ([]compiled, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	if declType == nil {
		return nil, errors.New("failed to convert to declType for CEL validation rules")
	}
	oldSelfEnv, optionalOldSelfEnv, err := ruleEnvs(version, declType)
	if err != nil {
		return nil, err
	}
	// The stored environment is built only when some expression needs it.
	var storedOldSelfEnv, storedOptionalOldSelfEnv *celgo.Env
	if pre != nil {
		needed := false
		for _, r := range rules {
			needed = needed || pre.rules[r.Rule] || (r.MessageExpression != "" && pre.messageExpressions[r.MessageExpression])
		}
		if needed {
			if storedOldSelfEnv, storedOptionalOldSelfEnv, err = ruleEnvs(storedVersion, declType); err != nil {
				return nil, err
			}
		}
	}
	estimator := &CostEstimator{SizeEstimator: &sizeEstimator{root: declType}}
	maxCard := uint64(MaxRequestSizeBytes / (declType.MinSerializedSize + 1))
	out := make([]compiled, len(rules))
	for i, r := range rules {
		optional := r.OptionalOldSelf != nil && *r.OptionalOldSelf
		env, stored := oldSelfEnv, storedOldSelfEnv
		if optional {
			env, stored = optionalOldSelfEnv, storedOptionalOldSelfEnv
		}
		ruleEnv, msgEnv := env, env
		if pre != nil && pre.rules[r.Rule] {
			ruleEnv = stored
		}
		if pre != nil && pre.messageExpressions[r.MessageExpression] {
			msgEnv = stored
		}
		out[i] = compileRule(s, r, ruleEnv, msgEnv, estimator, maxCard, perCallLimit)
	}
	return out, nil
}

func compileRule(s *schema.Structural, r Rule, env, msgEnv *celgo.Env, estimator *CostEstimator, maxCard, perCallLimit uint64) (res compiled) {
	if len(strings.TrimSpace(r.Rule)) == 0 {
		return res
	}
	ast, issues := env.Compile(r.Rule)
	if issues != nil {
		res.err = &ruleError{Type: errTypeInvalid, Detail: "compilation failed: " + issues.String()}
		return res
	}
	if ast.OutputType() != celgo.BoolType {
		res.err = &ruleError{Type: errTypeInvalid, Detail: "cel expression must evaluate to a bool"}
		return res
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == oldSelfVar {
			res.usesOldSelf = true
			break
		}
	}
	prog, err := env.Program(ast, celgo.CostLimit(perCallLimit), celgo.CostTracking(estimator), celgo.InterruptCheckFrequency(checkFrequency))
	if err != nil {
		res.err = &ruleError{Type: errTypeInvalid, Detail: "program instantiation failed: " + err.Error()}
		return res
	}
	est, err := env.EstimateCost(ast, estimator)
	if err != nil {
		res.err = &ruleError{Type: errTypeInternal, Detail: "cost estimation failed: " + err.Error()}
		return res
	}
	res.maxCost = est.Max
	res.maxCardinality = maxCard
	res.program = prog
	if r.MessageExpression != "" {
		mast, issues := msgEnv.Compile(r.MessageExpression)
		if issues != nil {
			res.messageExpressionErr = &ruleError{Type: errTypeInvalid, Detail: "messageExpression compilation failed: " + issues.String()}
			return res
		}
		if mast.OutputType() != celgo.StringType {
			res.messageExpressionErr = &ruleError{Type: errTypeInvalid, Detail: "messageExpression must evaluate to a string"}
			return res
		}
		mprog, err := msgEnv.Program(mast, celgo.CostLimit(perCallLimit), celgo.CostTracking(estimator), celgo.InterruptCheckFrequency(checkFrequency))
		if err != nil {
			res.messageExpressionErr = &ruleError{Type: errTypeInvalid, Detail: "messageExpression instantiation failed: " + err.Error()}
			return res
		}
		mest, err := msgEnv.EstimateCost(mast, estimator)
		if err != nil {
			res.messageExpressionErr = &ruleError{Type: errTypeInternal, Detail: "cost estimation failed for messageExpression: " + err.Error()}
			return res
		}
		res.messageExpression = mprog
		res.messageExpressionMaxCost = mest.Max
	}
	if r.FieldPath != "" {
		if p, _, err := schema.ValidFieldPath(r.FieldPath, s, true); err == nil {
			res.normalizedFieldPath = p.String()
		}
	}
	return res
}

// sizeEstimator sizes declared values from the schema (maxLength, maxItems, maxProperties, or
// what fits in a request).
type sizeEstimator struct {
	root *DeclType
	// variable, when set, is the one variable sized (a path's first element); the others are
	// unsized.
	variable string
	// undeclared, when set, is the type of a field the declaration does not name (nil: unsized).
	undeclared func(cur *DeclType) *DeclType
}

func (c *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 || (c.variable != "" && path[0] != c.variable) {
		return nil
	}
	cur := c.root
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			if cur.ElemType == nil {
				return nil
			}
			cur = cur.ElemType
		case "@keys":
			if cur.KeyType == nil {
				return nil
			}
			cur = cur.KeyType
		default:
			f, ok := cur.Fields[name]
			if !ok && c.undeclared != nil {
				if t := c.undeclared(cur); t != nil {
					cur = t
					continue
				}
			}
			if !ok || f.Type == nil {
				return nil
			}
			cur = f.Type
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(cur.MaxElements)}
}

func (c *sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// Validator evaluates the x-kubernetes-validations rules of a structural schema, compiled once
// (apiextensions' schema/cel.Validator). It is immutable and safe for concurrent use.
type Validator struct {
	items                *Validator
	properties           map[string]*Validator
	propertyNames        []string
	allOf                []*Validator
	additionalProperties *Validator
	schema               *schema.Structural

	rules          []Rule
	compiled       []compiled
	compilationErr error
	isResourceRoot bool
	usesOldSelf    bool
}

// Options configure a Validator.
type Options struct {
	// PerCallLimit is the runtime cost limit of one rule evaluation (default PerCallLimit).
	PerCallLimit uint64
	// Version is the compatibility version of the environment (default V1_37: the apiserver
	// evaluates stored rules with every library it knows).
	Version Version
}

func (o Options) withDefaults() Options {
	if o.PerCallLimit == 0 {
		o.PerCallLimit = PerCallLimit
	}
	if o.Version.Minor == 0 {
		o.Version = V1_37
	}
	return o
}

// NewValidator compiles the rules of s and all its descendants. It returns nil when s has no
// rules anywhere. isResourceRoot is true for the schema of a whole custom resource (apiVersion,
// kind and metadata.name/generateName are then visible to rules).
func NewValidator(s *schema.Structural, isResourceRoot bool, opts Options) *Validator {
	if !hasXValidations(s) {
		return nil
	}
	opts = opts.withDefaults()
	return newValidator(s, s, isResourceRoot, SchemaDeclType(s, isResourceRoot), opts)
}

func hasXValidations(s *schema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || hasXValidations(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasXValidations(s.AdditionalProperties.Structural) {
		return true
	}
	for _, p := range s.Properties {
		if hasXValidations(p) {
			return true
		}
	}
	return false
}

// nestedToStructural turns an allOf branch into a schema for its rules.
func nestedToStructural(n *schema.NestedValueValidation) *schema.Structural {
	if n == nil {
		return nil
	}
	vv := n.ValueValidation
	s := &schema.Structural{
		ValueValidation:        &vv,
		XValidations:           n.XValidations,
		Type:                   n.ForbiddenType,
		Nullable:               n.ForbiddenNullable,
		XPreserveUnknownFields: n.ForbiddenPreserveUnknownFields,
		XEmbeddedResource:      n.ForbiddenEmbeddedResource,
		XIntOrString:           n.ForbiddenIntOrString,
		XListMapKeys:           n.ForbiddenListMapKeys,
		Items:                  nestedToStructural(n.Items),
	}
	if n.ForbiddenListType != nil {
		s.XListType = *n.ForbiddenListType
	}
	if n.ForbiddenMapType != nil {
		s.XMapType = *n.ForbiddenMapType
	}
	if len(n.Properties) > 0 {
		s.Properties = make(map[string]*schema.Structural, len(n.Properties))
		for k, v := range n.Properties {
			s.Properties[k] = nestedToStructural(v)
		}
	}
	if n.AdditionalProperties != nil {
		s.AdditionalProperties = &schema.StructuralOrBool{Structural: nestedToStructural(n.AdditionalProperties)}
	}
	return s
}

func newValidator(validationSchema, nodeSchema *schema.Structural, isResourceRoot bool, declType *DeclType, opts Options) *Validator {
	compilationSchema := *nodeSchema
	compilationSchema.XValidations = validationSchema.XValidations
	rules, perr := ParseRules(validationSchema.XValidations)
	var comp []compiled
	var err error
	if perr != nil {
		err = perr
	} else {
		comp, err = compileRules(&compilationSchema, rules, declType, opts.PerCallLimit, opts.Version, nil)
	}
	var elemType *DeclType
	if declType != nil {
		elemType = declType.ElemType
	}
	v := &Validator{rules: rules, compiled: comp, compilationErr: err, isResourceRoot: isResourceRoot, schema: nodeSchema}
	if validationSchema.Items != nil && nodeSchema.Items != nil {
		v.items = newValidator(validationSchema.Items, nodeSchema.Items, nodeSchema.Items.XEmbeddedResource, elemType, opts)
	}
	if len(validationSchema.Properties) > 0 {
		for _, k := range validationSchema.PropertyNames() {
			vp := validationSchema.Properties[k]
			np, ok := nodeSchema.Properties[k]
			if !ok {
				continue
			}
			var ft *DeclType
			if escaped, ok := Escape(k); ok {
				if declType == nil {
					continue
				}
				f, ok := declType.Fields[escaped]
				if !ok {
					continue
				}
				ft = f.Type
			} else {
				if ft = SchemaDeclType(np, np.XEmbeddedResource); ft == nil {
					continue
				}
			}
			if p := newValidator(vp, np, np.XEmbeddedResource, ft, opts); p != nil {
				if v.properties == nil {
					v.properties = map[string]*Validator{}
				}
				v.properties[k] = p
				v.propertyNames = append(v.propertyNames, k)
			}
		}
		sort.Strings(v.propertyNames)
	}
	if ap, nap := validationSchema.AdditionalPropertiesSchema(), nodeSchema.AdditionalPropertiesSchema(); ap != nil && nap != nil {
		v.additionalProperties = newValidator(ap, nap, nap.XEmbeddedResource, elemType, opts)
	}
	if validationSchema.ValueValidation != nil {
		for i := range validationSchema.ValueValidation.AllOf {
			if a := newValidator(nestedToStructural(&validationSchema.ValueValidation.AllOf[i]), nodeSchema, isResourceRoot, declType, opts); a != nil {
				v.allOf = append(v.allOf, a)
			}
		}
	}
	for _, c := range comp {
		if c.usesOldSelf {
			v.usesOldSelf = true
		}
	}
	if len(comp) > 0 || err != nil || v.items != nil || v.additionalProperties != nil || len(v.properties) > 0 || len(v.allOf) > 0 {
		return v
	}
	return nil
}

// Result is the outcome of evaluating rules.
type Result struct {
	// Errors are the failed rules, as the apiserver reports them.
	Errors field.ErrorList
	// Warnings are rule failures ratcheted away on update (unchanged values): the apiserver
	// returns them as warnings.
	Warnings []string
	// RemainingBudget is the cost budget left; negative when evaluation stopped early.
	RemainingBudget int64
}

// Validate evaluates the rules on obj (old is the stored value on update, nil on create) at
// fldPath, with a runtime cost budget (RuntimeCELCostBudget for a custom resource write).
// On update, failures of rules that do not use oldSelf on values unchanged from old are
// ratcheted into warnings (CRDValidationRatcheting, GA). obj and old are not modified.
func (v *Validator) Validate(ctx context.Context, fldPath field.Path, obj, old any, budget int64) Result {
	st := &evalState{ctx: ctx}
	var corr ratchet
	if old != nil {
		corr = ratchet{current: schema.NewCorrelated(obj, old, v.schemaOrNil())}
	}
	errs, rem := v.validate(st, fldPath, obj, old, corr, budget)
	return Result{Errors: errs, Warnings: st.warnings, RemainingBudget: rem}
}

func (v *Validator) schemaOrNil() *schema.Structural {
	if v == nil {
		return nil
	}
	return v.schema
}

type evalState struct {
	ctx      context.Context
	warnings []string
}

type ratchet struct {
	current, nearestParent *schema.Correlated
}

func (r ratchet) shouldRatchet() bool {
	if r.current != nil {
		return r.current.DeepEqual()
	}
	return r.nearestParent.DeepEqual()
}

func (r ratchet) key(f string) ratchet {
	if r.current == nil {
		return r
	}
	if r.nearestParent == nil && (f == "apiVersion" || f == "kind") {
		return ratchet{}
	}
	return ratchet{current: r.current.Key(f), nearestParent: r.current}
}

func (r ratchet) index(i int) ratchet {
	if r.current == nil {
		return r
	}
	return ratchet{current: r.current.Index(i), nearestParent: r.current}
}

func isNilValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return x == nil
	case []any:
		return x == nil
	}
	return false
}

func (v *Validator) validate(st *evalState, fldPath field.Path, obj, old any, corr ratchet, budget int64) (field.ErrorList, int64) {
	rem := budget
	if v == nil || obj == nil {
		return nil, rem
	}
	errs, rem := v.validateExpressions(st, fldPath, obj, old, corr, rem)
	if rem < 0 {
		return errs, rem
	}
	for _, a := range v.allOf {
		var aErrs field.ErrorList
		aErrs, rem = a.validate(st, fldPath, obj, old, ratchet{nearestParent: corr.nearestParent}, rem)
		errs = append(errs, aErrs...)
		if rem < 0 {
			return errs, rem
		}
	}
	switch o := obj.(type) {
	case []any:
		oldList, _ := old.([]any)
		var e field.ErrorList
		e, rem = v.validateArray(st, fldPath, o, oldList, corr, rem)
		return append(errs, e...), rem
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		var e field.ErrorList
		e, rem = v.validateMap(st, fldPath, o, oldMap, corr, rem)
		return append(errs, e...), rem
	}
	return errs, rem
}

var newlineMatcher = regexp.MustCompile(`[\n]+`)

func (v *Validator) validateExpressions(st *evalState, fldPath field.Path, obj, old any, corr ratchet, budget int64) (errs field.ErrorList, rem int64) {
	sts := v.schema
	if isNilValue(old) {
		old = nil
	}
	rem = budget
	if obj == nil {
		return nil, rem
	}
	if v.compilationErr != nil {
		return field.ErrorList{field.Invalid(fldPath, sts.Type, fmt.Sprintf("rule compiler initialization error: %v", v.compilationErr))}, rem
	}
	if len(v.compiled) == 0 {
		return nil, rem
	}
	if rem <= 0 {
		return field.ErrorList{field.Invalid(fldPath, sts.Type, "validation failed due to running out of cost budget, no further validation rules will be run")}, -1
	}
	if v.isResourceRoot {
		sts = withTypeAndObjectMeta(sts)
	}
	act, optAct := v.activations(sts, obj, old)
	for i, c := range v.compiled {
		rule := v.rules[i]
		if c.err != nil {
			errs = append(errs, field.Invalid(fldPath, sts.Type, fmt.Sprintf("rule compile error: %v", c.err)))
			continue
		}
		if c.program == nil {
			continue
		}
		optionalOldSelf := rule.OptionalOldSelf != nil && *rule.OptionalOldSelf
		if c.usesOldSelf && old == nil && !optionalOldSelf {
			continue
		}
		ruleAct := act
		if optionalOldSelf {
			ruleAct = optAct
		}
		result, details, err := c.program.ContextEval(st.ctx, ruleAct)
		if details == nil {
			errs = append(errs, field.InternalError(fldPath, fmt.Errorf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(rule))))
			return errs, -1
		}
		cost := details.ActualCost()
		if cost == nil {
			errs = append(errs, field.Invalid(fldPath, sts.Type, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(rule))))
			return errs, -1
		}
		if *cost > math.MaxInt64 || int64(*cost) > rem {
			errs = append(errs, field.Invalid(fldPath, sts.Type, "validation failed due to running out of cost budget, no further validation rules will be run"))
			return errs, -1
		}
		rem -= int64(*cost)
		if err != nil {
			switch {
			case strings.HasPrefix(err.Error(), "no such overload"):
				errs = append(errs, field.Invalid(fldPath, sts.Type, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(rule))))
			case strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded"):
				errs = append(errs, field.Invalid(fldPath, sts.Type, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(rule))))
				return errs, -1
			default:
				errs = append(errs, field.Invalid(fldPath, sts.Type, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(rule))))
			}
			continue
		}
		if result == types.True {
			continue
		}
		cur := fldPath
		if c.normalizedFieldPath != "" {
			cur = cur.Child(c.normalizedFieldPath)
		}
		addErr := func(e *field.Error) {
			if !c.usesOldSelf && corr.shouldRatchet() {
				st.warnings = append(st.warnings, e.Error())
			} else {
				errs = append(errs, e)
			}
		}
		detail, ok := "", false
		if c.messageExpression != nil {
			msg, newRem, msgErr := evalMessageExpression(st.ctx, c.messageExpression, rule.MessageExpression, act, rem)
			switch {
			case msgErr == nil:
				detail, ok = msg, true
				rem = newRem
			case msgErr.Type == errTypeInternal:
				addErr(field.InternalError(cur, msgErr))
				return errs, -1
			case msgErr.Type == errTypeInvalid:
				addErr(field.Invalid(cur, sts.Type, msgErr.Error()))
				return errs, -1
			default:
				rem = newRem
			}
		}
		if !ok {
			detail = messageOrDefault(rule)
		}
		var value any = obj
		if sts.Type == "object" || sts.Type == "array" {
			value = field.OmitValueType{}
		}
		addErr(fieldErrorForReason(cur, value, detail, rule.Reason))
	}
	return errs, rem
}

func fieldErrorForReason(p field.Path, value any, detail string, reason *string) *field.Error {
	if reason == nil {
		return field.Invalid(p, value, detail)
	}
	switch *reason {
	case "FieldValueForbidden":
		return field.Forbidden(p, detail)
	case "FieldValueRequired":
		return field.Required(p, detail)
	case "FieldValueDuplicate":
		return field.Duplicate(p, value)
	}
	return field.Invalid(p, value, detail)
}

func evalMessageExpression(ctx context.Context, prog celgo.Program, src string, act interpreter.Activation, rem int64) (string, int64, *ruleError) {
	result, details, err := prog.ContextEval(ctx, act)
	if details == nil || details.ActualCost() == nil {
		return "", -1, &ruleError{Type: errTypeInternal, Detail: fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", src)}
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > rem {
		return "", -1, &ruleError{Type: errTypeInvalid, Detail: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"}
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			return "", -1, &ruleError{Type: errTypeInvalid, Detail: fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", src)}
		}
		return "", rem - int64(cost), &ruleError{Detail: fmt.Sprintf("messageExpression evaluation failed due to: %v", err.Error())}
	}
	s, ok := result.Value().(string)
	if !ok {
		return "", rem - int64(cost), &ruleError{Detail: "messageExpression failed to convert to string"}
	}
	s = strings.TrimSpace(s)
	switch {
	case len(s) > maxMessageExpressionSize:
		return "", rem - int64(cost), &ruleError{Detail: fmt.Sprintf("messageExpression beyond allowable length of %d", maxMessageExpressionSize)}
	case newlineMatcher.MatchString(s):
		return "", rem - int64(cost), &ruleError{Detail: "messageExpression should not contain line breaks"}
	case len(s) == 0:
		return "", rem - int64(cost), &ruleError{Detail: "messageExpression should evaluate to a non-empty string"}
	}
	return s, rem - int64(cost), nil
}

type activation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case selfVar:
		return a.self, true
	case oldSelfVar:
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

func (v *Validator) activations(sts *schema.Structural, obj, old any) (interpreter.Activation, interpreter.Activation) {
	a := &activation{self: ValueOf(obj, sts)}
	if !v.usesOldSelf {
		return a, a
	}
	opt := &activation{self: a.self, hasOldSelf: true, oldSelf: types.OptionalNone}
	if old != nil {
		a.oldSelf = ValueOf(old, sts)
		a.hasOldSelf = true
		opt.oldSelf = types.OptionalOf(a.oldSelf)
	}
	return a, opt
}

// mapIsCorrelatable: only granular and atomic maps correlate old values (not
// x-kubernetes-map-type=... other values).
func mapIsCorrelatable(mapType string) bool {
	return mapType == "" || mapType == "granular" || mapType == "atomic"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validateMap walks properties in sorted key order (the apiserver walks Go map order, which is
// random; writepath is deterministic).
func (v *Validator) validateMap(st *evalState, fldPath field.Path, obj, old map[string]any, corr ratchet, budget int64) (errs field.ErrorList, rem int64) {
	rem = budget
	if rem < 0 {
		return errs, rem
	}
	if v == nil || obj == nil {
		return nil, rem
	}
	correlatable := mapIsCorrelatable(v.schema.XMapType)
	keys := sortedKeys(obj)
	if v.additionalProperties != nil {
		for _, k := range keys {
			var oldV any
			if correlatable {
				oldV = old[k]
			}
			var e field.ErrorList
			e, rem = v.additionalProperties.validate(st, fldPath.Key(k), obj[k], oldV, corr.key(k), rem)
			errs = append(errs, e...)
			if rem < 0 {
				return errs, rem
			}
		}
	}
	if v.properties != nil {
		for _, k := range keys {
			sub, ok := v.properties[k]
			if !ok {
				continue
			}
			var oldV any
			if correlatable {
				oldV = old[k]
			}
			var e field.ErrorList
			e, rem = sub.validate(st, fldPath.Child(k), obj[k], oldV, corr.key(k), rem)
			errs = append(errs, e...)
			if rem < 0 {
				return errs, rem
			}
		}
	}
	return errs, rem
}

func (v *Validator) validateArray(st *evalState, fldPath field.Path, obj, old []any, corr ratchet, budget int64) (errs field.ErrorList, rem int64) {
	rem = budget
	if rem < 0 {
		return errs, rem
	}
	if v.items != nil {
		oldItems := schema.NewListMap(v.schema, old)
		for i := range obj {
			var e field.ErrorList
			e, rem = v.items.validate(st, fldPath.Index(i), obj[i], oldItems.Get(obj[i]), corr.index(i), rem)
			errs = append(errs, e...)
			if rem < 0 {
				return errs, rem
			}
		}
	}
	return errs, rem
}

// Validators holds the compiled validators of custom resources' structural
// schemas, so that a schema is compiled once for every object validated
// against it. Its owner keeps it as long as the schemas it was given (a
// server, the CRDs it serves; a registry world, its own) and drops it with
// them: nothing outlives it. The zero value is ready to use; it is safe for
// concurrent use.
type Validators struct {
	m sync.Map // *schema.Structural -> *cachedValidator
}

type cachedValidator struct {
	once sync.Once
	v    *Validator
}

// For returns the compiled validator of a custom resource's structural
// schema (isResourceRoot, default Options), compiling it on first use and
// keeping it for later calls with the same schema. It returns nil when the
// schema has no rules.
func (vs *Validators) For(s *schema.Structural) *Validator {
	if s == nil {
		return nil
	}
	e, _ := vs.m.LoadOrStore(s, &cachedValidator{})
	c := e.(*cachedValidator)
	c.once.Do(func() { c.v = NewValidator(s, true, Options{}) })
	return c.v
}
