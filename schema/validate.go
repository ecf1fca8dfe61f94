package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
)

// Validator checks custom objects against the OpenAPI schema of a CRD version, with the
// semantics and messages of the apiserver's schema validator (apiextensions'
// pkg/apiserver/validation over kube-openapi's validate package): types, Kubernetes formats,
// enum, bounds, multipleOf, pattern (RE2), lengths, item and property counts, uniqueItems,
// required, additionalProperties, allOf/anyOf/oneOf/not. A Validator is compiled once and is
// safe for concurrent use.
type Validator struct {
	root *vnode
}

// vnode is one compiled schema node (a spec.Schema after the apiserver's format post-processing).
type vnode struct {
	types    []string
	nullable bool
	format   string // after StripUnsupportedFormats
	fmtOK    bool   // format is known to the registry (format validator applies)
	numType  string // numberValidator's Type/Format (set only for single-type schemas)
	numFmt   string

	maximum, minimum           *float64
	exclusiveMax, exclusiveMin bool
	multipleOf                 *float64
	maxLength, minLength       *int64
	pattern                    string
	re                         *regexp.Regexp
	reErr                      error
	maxItems, minItems         *int64
	uniqueItems                bool
	enum                       []any
	maxProps, minProps         *int64
	required                   []string

	properties map[string]*vnode
	propNames  []string
	apSet      bool // additionalProperties present
	apAllows   bool
	apSchema   *vnode
	items      *vnode

	allOf, anyOf, oneOf []*vnode
	not                 *vnode
}

// NewValidator compiles the validator of a CRD version's openAPIV3Schema. A nil schema gives a
// validator that accepts everything.
func NewValidator(p *Props) *Validator {
	if p == nil {
		return &Validator{}
	}
	return &Validator{root: compile(p, 0)}
}

func compile(p *Props, depth int) *vnode {
	if p == nil || depth > maxSchemaDepth {
		return &vnode{}
	}
	n := &vnode{
		nullable: p.Nullable, maximum: p.Maximum, minimum: p.Minimum,
		exclusiveMax: p.ExclusiveMaximum, exclusiveMin: p.ExclusiveMinimum, multipleOf: p.MultipleOf,
		maxLength: p.MaxLength, minLength: p.MinLength, pattern: p.Pattern,
		maxItems: p.MaxItems, minItems: p.MinItems, uniqueItems: p.UniqueItems, enum: p.Enum,
		maxProps: p.MaxProperties, minProps: p.MinProperties, required: p.Required,
	}
	if p.Type != "" {
		n.types = []string{p.Type}
	}
	if p.XIntOrString {
		n.types = []string{"integer", "string"}
	}
	n.format = effectiveFormat(p.Format, n.types)
	n.fmtOK = knownFormat(n.format)
	n.setNumberType()
	if n.pattern != "" {
		n.re, n.reErr = regexp.Compile(n.pattern)
	}
	if len(p.Properties) > 0 {
		n.properties = make(map[string]*vnode, len(p.Properties))
		n.propNames = p.propertyOrderOrSorted()
		for _, k := range n.propNames {
			n.properties[k] = compile(p.Properties[k], depth+1)
		}
	}
	if p.AdditionalProperties != nil {
		n.apSet = true
		n.apAllows = p.AdditionalProperties.Allows
		if p.AdditionalProperties.Schema != nil {
			n.apSchema = compile(p.AdditionalProperties.Schema, depth+1)
		}
	}
	if p.Items != nil {
		n.items = compile(p.Items, depth+1)
	}
	for i := range p.AllOf {
		n.allOf = append(n.allOf, compile(&p.AllOf[i], depth+1))
	}
	for i := range p.AnyOf {
		n.anyOf = append(n.anyOf, compile(&p.AnyOf[i], depth+1))
	}
	for i := range p.OneOf {
		n.oneOf = append(n.oneOf, compile(&p.OneOf[i], depth+1))
	}
	if p.Not != nil {
		n.not = compile(p.Not, depth+1)
	}
	return n
}

// ---- results, as kube-openapi's validate.Result ----

// verr is one error of the OpenAPI validator: a *errors.Validation (validation true) with its
// code, name (dotted path), value and bounds, or a plain error.
type verr struct {
	validation bool
	code       int
	name       string
	value      any
	hasValue   bool
	valid      any
	values     []any
	msg        string
}

const (
	codeInvalidType = 600 + iota
	codeRequired
	codeTooLong
	codeTooShort
	codePattern
	codeEnum
	codeMultipleOf
	codeMax
	codeMin
	codeUnique
	codeMaxItems
	codeMinItems
	codeNoAdditionalItems
	codeTooFewProperties
	codeTooManyProperties
	codeUnallowedProperty
	codeFailedAllPatternProps
	codeMultipleOfMustBePositive
)

type result struct {
	errs  []*verr
	count int
}

func (r *result) addErr(e *verr) {
	for _, x := range r.errs {
		if x.msg == e.msg {
			return
		}
	}
	r.errs = append(r.errs, e)
}

func (r *result) merge(o result) {
	for _, e := range o.errs {
		r.addErr(e)
	}
	r.count += o.count
}

func (r *result) valid() bool { return len(r.errs) == 0 }

func single(e *verr) result { return result{errs: []*verr{e}} }

const in = "body"

func vInvalidType(path, typeName string, value any) *verr {
	var msg string
	switch v := value.(type) {
	case string:
		msg = fmt.Sprintf("%s in %s must be of type %s: %q", path, in, typeName, v)
	default:
		msg = fmt.Sprintf("%s in %s must be of type %s", path, in, typeName)
	}
	return &verr{validation: true, code: codeInvalidType, name: path, value: value, hasValue: true, msg: msg}
}

func plainErr(msg string) *verr { return &verr{msg: msg} }

// ---- the validator ----

// validateNode validates data at n. corr is the correlation of this node with the old object
// (nil when not ratcheting or uncorrelatable): invalid values equal to their old values pass.
func (n *vnode) validateNode(data any, path string, corr *Correlated) result {
	r := n.validateSchema(data, path, corr)
	if corr != nil && !r.valid() && corr.DeepEqual() {
		r.errs = nil // ratcheted: the errors become warnings, which nobody reports
	}
	return r
}

func (n *vnode) childField(corr *Correlated, parentPath, k string) *Correlated {
	if corr == nil || (parentPath == "" && (k == "kind" || k == "apiVersion")) {
		return nil
	}
	return corr.Key(k)
}

type valueKind int

const (
	kNil valueKind = iota
	kBool
	kString
	kInt
	kFloat
	kSlice
	kMap
	kOther
)

func kindOf(v any) valueKind {
	switch v.(type) {
	case nil:
		return kNil
	case bool:
		return kBool
	case string:
		return kString
	case int64:
		return kInt
	case float64:
		return kFloat
	case []any:
		return kSlice
	case map[string]any:
		return kMap
	}
	return kOther
}

func containsType(types []string, t string) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// validateSchema is kube-openapi's SchemaValidator.Validate: the type, schema-props, string,
// format, number, slice, common (enum) and object validators in that order, counting matches so
// that anyOf/oneOf report the best failing alternative as the apiserver does.
func (n *vnode) validateSchema(data any, path string, corr *Correlated) result {
	var res result
	if n == nil {
		return res
	}
	kind := kindOf(data)
	if kind == kNil {
		if len(n.types) > 0 && !containsType(n.types, "null") && !n.nullable {
			res.merge(single(vInvalidType(path, strings.Join(n.types, ","), "null")))
		} else {
			res.count++
		}
		if len(n.enum) > 0 {
			res.merge(n.validateEnum(data, path))
		}
		return res
	}
	if len(n.types) > 0 || n.format != "" {
		res.merge(n.validateType(data, kind, path))
		res.count++
	}
	res.merge(n.validateProps(data, path))
	res.count++
	if kind == kString {
		res.merge(n.validateString(data.(string), path))
		res.count++
		if n.fmtOK {
			if !formatValidators[normalizeFormat(n.format)](data.(string)) {
				res.merge(single(vInvalidType(path, n.format, data.(string))))
			}
			res.count++
		}
	}
	if kind == kInt || kind == kFloat {
		res.merge(n.validateNumber(data, kind, path))
		res.count++
	}
	if kind == kSlice {
		res.merge(n.validateSlice(data.([]any), path, corr))
		res.count++
	}
	if len(n.enum) > 0 {
		res.merge(n.validateEnum(data, path))
	}
	res.count++
	if kind == kMap {
		res.merge(n.validateObject(data.(map[string]any), path, corr))
		res.count++
	}
	res.count++
	return res
}

func (n *vnode) validateType(data any, kind valueKind, path string) result {
	var schType, format string
	var f float64
	switch kind {
	case kBool:
		schType = "boolean"
	case kString:
		schType = "string"
	case kInt:
		schType, format = "integer", "int64"
	case kFloat:
		schType, format = "number", "float64"
		f = data.(float64)
	case kSlice:
		schType = "array"
	case kMap:
		schType = "object"
	}
	isFloatInt := schType == "number" && isFloat64AJSONInteger(f) && containsType(n.types, "integer")
	isIntFloat := schType == "integer" && containsType(n.types, "number")
	if kind != kString && kind != kSlice && n.format != "" && !(containsType(n.types, schType) || format == n.format || isFloatInt || isIntFloat) {
		return single(vInvalidType(path, n.format, format))
	}
	if !(containsType(n.types, "number") || containsType(n.types, "integer")) && n.format != "" && (kind == kString || kind == kSlice) {
		return result{count: 1}
	}
	if !(containsType(n.types, schType) || isFloatInt || isIntFloat) {
		return single(vInvalidType(path, strings.Join(n.types, ","), schType))
	}
	return result{count: 1}
}

// isFloat64AJSONInteger is go-openapi/swag's check that a float is integral (within 1e-9).
func isFloat64AJSONInteger(f float64) bool {
	const maxJSONFloat = float64(1<<53 - 1)
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -maxJSONFloat || f > maxJSONFloat {
		return false
	}
	rounded := math.Round(f)
	if f == rounded {
		return true
	}
	if rounded == 0 {
		return false
	}
	diff := math.Abs(f - rounded)
	if diff == 0 {
		return true
	}
	return diff < 1e-9*math.Abs(rounded)
}

// validateProps is the schema-props validator: allOf/anyOf/oneOf/not. Their alternatives are
// validated without ratcheting, as kube-openapi builds them without the ratcheting options.
func (n *vnode) validateProps(data any, path string) result {
	var main result
	if len(n.anyOf) > 0 {
		var best, firstSuccess *result
		succeeded := false
		for _, s := range n.anyOf {
			r := s.validateSchema(data, path, nil)
			if r.valid() {
				best = nil
				succeeded = true
				rr := r
				firstSuccess = &rr
				break
			}
			if best == nil || r.count > best.count {
				rr := r
				best = &rr
			}
		}
		if !succeeded {
			main.addErr(plainErr(fmt.Sprintf("%q must validate at least one schema (anyOf)", path)))
		}
		if best != nil {
			main.merge(*best)
		} else if firstSuccess != nil {
			main.merge(*firstSuccess)
		}
	}
	if len(n.oneOf) > 0 {
		var best, firstSuccess *result
		validated := 0
		for _, s := range n.oneOf {
			r := s.validateSchema(data, path, nil)
			if r.valid() {
				validated++
				best = nil
				if firstSuccess == nil {
					rr := r
					firstSuccess = &rr
				}
				continue
			}
			if validated == 0 && (best == nil || r.count > best.count) {
				rr := r
				best = &rr
			}
		}
		if validated != 1 {
			add := "Found none valid"
			if validated > 0 {
				add = fmt.Sprintf("Found %d valid alternatives", validated)
			}
			main.addErr(plainErr(fmt.Sprintf("%q must validate one and only one schema (oneOf). %s", path, add)))
			if best != nil {
				main.merge(*best)
			}
		} else if firstSuccess != nil {
			main.merge(*firstSuccess)
		}
	}
	if len(n.allOf) > 0 {
		validated := 0
		for _, s := range n.allOf {
			r := s.validateSchema(data, path, nil)
			if r.valid() {
				validated++
			}
			main.merge(r)
		}
		if validated != len(n.allOf) {
			add := ""
			if validated == 0 {
				add = ". None validated"
			}
			main.addErr(plainErr(fmt.Sprintf("%q must validate all the schemas (allOf)%s", path, add)))
		}
	}
	if n.not != nil {
		if r := n.not.validateSchema(data, path, nil); r.valid() {
			main.addErr(plainErr(fmt.Sprintf("%q must not validate the schema (not)", path)))
		}
	}
	main.count++
	return main
}

func (n *vnode) validateString(s, path string) result {
	if n.maxLength != nil && int64(utf8.RuneCountInString(s)) > *n.maxLength {
		return single(&verr{validation: true, code: codeTooLong, name: path, value: s, hasValue: true, valid: *n.maxLength,
			msg: fmt.Sprintf("%s in %s should be at most %d chars long", path, in, *n.maxLength)})
	}
	if n.minLength != nil && int64(utf8.RuneCountInString(s)) < *n.minLength {
		return single(&verr{validation: true, code: codeTooShort, name: path, value: s, hasValue: true, valid: *n.minLength,
			msg: fmt.Sprintf("%s in %s should be at least %d chars long", path, in, *n.minLength)})
	}
	if n.pattern != "" {
		if n.reErr != nil {
			return single(&verr{validation: true, code: codePattern, name: path, value: s, hasValue: true,
				msg: fmt.Sprintf("%s in %s should match '%s'", path, in, fmt.Sprintf("%s, but pattern is invalid: %s", n.pattern, n.reErr.Error()))})
		}
		if !n.re.MatchString(s) {
			return single(&verr{validation: true, code: codePattern, name: path, value: s, hasValue: true,
				msg: fmt.Sprintf("%s in %s should match '%s'", path, in, n.pattern)})
		}
	}
	return result{}
}

// rangeCheck is kube-openapi's IsValueValidAgainstRange.
func rangeCheck(v any, typeName, format, prefix, path string) error {
	var rep string
	switch x := v.(type) {
	case int64:
		rep = strconv.FormatInt(x, 10)
	case float64:
		rep = strconv.FormatFloat(x, 'f', -1, 64)
	}
	var bad bool
	switch typeName {
	case "integer":
		bits := 64
		if format == "int32" {
			bits = 32
		}
		_, err := strconv.ParseInt(rep, 10, bits)
		bad = err != nil
	default:
		if format == "float" || format == "float32" {
			_, err := strconv.ParseFloat(rep, 32)
			bad = err != nil
		}
	}
	if !bad {
		return nil
	}
	if format != "" {
		return fmt.Errorf("%s value must be of type %s with format %s in %s", prefix, typeName, format, path)
	}
	return fmt.Errorf("%s value must be of type %s (default format) in %s", prefix, typeName, path)
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func maxErr(path string, max any, exclusive bool, value any) *verr {
	m := "%s in %s should be less than or equal to %v"
	if exclusive {
		m = "%s in %s should be less than %v"
	}
	return &verr{validation: true, code: codeMax, name: path, value: value, hasValue: true, msg: fmt.Sprintf(m, path, in, max)}
}

func minErr(path string, min any, exclusive bool, value any) *verr {
	m := "%s in %s should be greater than or equal to %v"
	if exclusive {
		m = "%s in %s should be greater than %v"
	}
	return &verr{validation: true, code: codeMin, name: path, value: value, hasValue: true, msg: fmt.Sprintf(m, path, in, min)}
}

func notMultipleErr(path string, factor, value any) *verr {
	return &verr{validation: true, code: codeMultipleOf, name: path, value: value, hasValue: true, msg: fmt.Sprintf("%s in %s should be a multiple of %v", path, in, factor)}
}

func mustBePositiveErr(path string, factor any) *verr {
	return &verr{validation: true, code: codeMultipleOfMustBePositive, name: path, value: factor, hasValue: true, msg: fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", path, factor)}
}

func multipleOfFloat(path string, data, factor float64) *verr {
	if factor <= 0 {
		return mustBePositiveErr(path, factor)
	}
	var mult float64
	if factor < 1 {
		mult = 1 / factor * data
	} else {
		mult = data / factor
	}
	if !isFloat64AJSONInteger(mult) {
		return notMultipleErr(path, factor, data)
	}
	return nil
}

func (n *vnode) validateNumber(v any, kind valueKind, path string) result {
	var res, resMul, resMin, resMax result
	data := asFloat(v)
	if err := rangeCheck(v, n.numType, n.numFmt, "Checked", path); err != nil {
		res.addErr(plainErr(err.Error()))
	}
	if n.multipleOf != nil {
		f := *n.multipleOf
		if err := rangeCheck(f, n.numType, n.numFmt, "MultipleOf", path); err != nil {
			resMul.addErr(plainErr(err.Error()))
			if e := multipleOfFloat(path, data, f); e != nil {
				resMul.addErr(e)
			}
		} else if kind == kInt {
			x, fi := v.(int64), int64(f)
			if fi <= 0 {
				resMul.addErr(mustBePositiveErr(path, fi))
			} else if (x/fi)*fi != x {
				resMul.addErr(notMultipleErr(path, fi, x))
			}
		} else if e := multipleOfFloat(path, data, f); e != nil {
			resMul.addErr(e)
		}
	}
	if n.maximum != nil {
		m := *n.maximum
		if err := rangeCheck(m, n.numType, n.numFmt, "Maximum boundary", path); err != nil {
			resMax.addErr(plainErr(err.Error()))
			if (!n.exclusiveMax && data > m) || (n.exclusiveMax && data >= m) {
				resMax.addErr(maxErr(path, m, n.exclusiveMax, data))
			}
		} else if kind == kInt {
			x, mi := v.(int64), int64(m)
			if (!n.exclusiveMax && x > mi) || (n.exclusiveMax && x >= mi) {
				resMax.addErr(maxErr(path, mi, n.exclusiveMax, x))
			}
		} else if (!n.exclusiveMax && data > m) || (n.exclusiveMax && data >= m) {
			resMax.addErr(maxErr(path, m, n.exclusiveMax, data))
		}
	}
	if n.minimum != nil {
		m := *n.minimum
		if err := rangeCheck(m, n.numType, n.numFmt, "Minimum boundary", path); err != nil {
			resMin.addErr(plainErr(err.Error()))
			if (!n.exclusiveMin && data < m) || (n.exclusiveMin && data <= m) {
				resMin.addErr(minErr(path, m, n.exclusiveMin, data))
			}
		} else if kind == kInt {
			x, mi := v.(int64), int64(m)
			if (!n.exclusiveMin && x < mi) || (n.exclusiveMin && x <= mi) {
				resMin.addErr(minErr(path, mi, n.exclusiveMin, x))
			}
		} else if (!n.exclusiveMin && data < m) || (n.exclusiveMin && data <= m) {
			resMin.addErr(minErr(path, m, n.exclusiveMin, data))
		}
	}
	res.merge(resMul)
	res.merge(resMin)
	res.merge(resMax)
	res.count++
	return res
}

func (n *vnode) validateSlice(l []any, path string, corr *Correlated) result {
	var res result
	if n.items != nil {
		for i, v := range l {
			var c *Correlated
			if corr != nil {
				c = corr.Index(i)
			}
			res.merge(n.items.validateNode(v, path+"["+strconv.Itoa(i)+"]", c))
		}
	}
	size := int64(len(l))
	if n.minItems != nil && size < *n.minItems {
		res.addErr(&verr{validation: true, code: codeMinItems, name: path, value: size, hasValue: true, valid: *n.minItems,
			msg: fmt.Sprintf("%s in %s should have at least %d items", path, in, *n.minItems)})
	}
	if n.maxItems != nil && size > *n.maxItems {
		res.addErr(&verr{validation: true, code: codeMaxItems, name: path, value: size, hasValue: true, valid: *n.maxItems,
			msg: fmt.Sprintf("%s in %s should have at most %d items", path, in, *n.maxItems)})
	}
	if n.uniqueItems {
	outer:
		for i := 1; i < len(l); i++ {
			for j := 0; j < i; j++ {
				if value.EqualNilDistinct(l[i], l[j]) {
					res.addErr(&verr{validation: true, code: codeUnique, name: path, msg: fmt.Sprintf("%s in %s shouldn't contain duplicates", path, in)})
					break outer
				}
			}
		}
	}
	res.count++
	return res
}

// enumMatches is kube-openapi's enum comparison: the value is converted to each enum value's Go
// type when Go allows it (so 2.5 matches an enum 2 and 65 matches "A"), then compared deeply.
func enumMatches(data, e any) bool {
	switch ev := e.(type) {
	case nil:
		return false
	case bool:
		d, ok := data.(bool)
		return ok && d == ev
	case int64:
		switch d := data.(type) {
		case int64:
			return d == ev
		case float64:
			return int64(d) == ev
		}
		return false
	case float64:
		switch d := data.(type) {
		case int64:
			return float64(d) == ev
		case float64:
			return d == ev
		}
		return false
	case string:
		switch d := data.(type) {
		case string:
			return d == ev
		case int64:
			s := "\uFFFD"
			if int64(rune(d)) == d {
				s = string(rune(d))
			}
			return s == ev
		}
		return false
	case []any:
		d, ok := data.([]any)
		return ok && value.EqualNilDistinct(d, ev)
	case map[string]any:
		d, ok := data.(map[string]any)
		return ok && value.EqualNilDistinct(d, ev)
	}
	return false
}

func (n *vnode) validateEnum(data any, path string) result {
	for _, e := range n.enum {
		if data != nil && enumMatches(data, e) {
			return result{}
		}
	}
	return single(&verr{validation: true, code: codeEnum, name: path, value: data, hasValue: true, values: n.enum,
		msg: fmt.Sprintf("%s in %s should be one of %v", path, in, n.enum)})
}

func (n *vnode) validateObject(m map[string]any, path string, corr *Correlated) result {
	var res result
	numKeys := int64(len(m))
	if n.minProps != nil && numKeys < *n.minProps {
		res.addErr(&verr{validation: true, code: codeTooFewProperties, name: path, value: numKeys, hasValue: true, valid: *n.minProps,
			msg: fmt.Sprintf("%s in %s should have at least %d properties", path, in, *n.minProps)})
	}
	if n.maxProps != nil && numKeys > *n.maxProps {
		res.addErr(&verr{validation: true, code: codeTooManyProperties, name: path, value: numKeys, hasValue: true, valid: *n.maxProps,
			msg: fmt.Sprintf("%s in %s should have at most %d properties", path, in, *n.maxProps)})
	}
	var keys []string
	if n.apSet && (!n.apAllows || n.apSchema != nil) {
		keys = sortedKeys(m)
	}
	if n.apSet && !n.apAllows {
		for _, k := range keys {
			if _, ok := n.properties[k]; !ok {
				res.addErr(&verr{validation: true, code: codeUnallowedProperty, name: path, value: k, hasValue: true,
					msg: fmt.Sprintf("%s.%s in %s is a forbidden property", path, k, in)})
			}
		}
	} else if n.apSchema != nil {
		for _, k := range keys {
			if _, ok := n.properties[k]; !ok {
				res.merge(n.apSchema.validateNode(m[k], path+"."+k, n.childField(corr, path, k)))
			}
		}
	}
	for _, k := range n.propNames {
		v, ok := m[k]
		if !ok {
			continue
		}
		rName := k
		if path != "" {
			rName = path + "." + k
		}
		res.merge(n.properties[k].validateNode(v, rName, n.childField(corr, path, k)))
	}
	for _, k := range n.required {
		if _, ok := m[k]; !ok {
			res.addErr(&verr{validation: true, code: codeRequired, name: path + "." + k,
				msg: fmt.Sprintf("%s in %s is required", path+"."+k, in)})
		}
	}
	return res
}

// Validate validates obj (a whole custom object, or the value at fldPath) and returns the errors
// as the apiserver reports them (ValidateCustomResource).
func (v *Validator) Validate(fldPath field.Path, obj any) field.ErrorList {
	if v == nil || v.root == nil {
		return nil
	}
	r := v.root.validateNode(obj, "", nil)
	return toFieldErrors(fldPath, r)
}

// ValidateUpdate validates obj with ratcheting against old, as ValidateCustomResourceUpdate does
// with CRDValidationRatcheting (GA in 1.37): an invalid value that is unchanged from old (matched
// through the structural schema s: object fields by name, list-map items by key) is not an error.
func (v *Validator) ValidateUpdate(fldPath field.Path, obj, old any, s *Structural) field.ErrorList {
	if v == nil || v.root == nil {
		return nil
	}
	corr := NewCorrelated(obj, old, s)
	r := v.root.validateNode(obj, "", corr)
	return toFieldErrors(fldPath, r)
}

func toFieldErrors(fldPath field.Path, r result) field.ErrorList {
	if r.valid() {
		return nil
	}
	var all field.ErrorList
	for _, e := range r.errs {
		if !e.validation {
			all = append(all, field.Invalid(fldPath, "", e.msg))
			continue
		}
		p := fldPath
		if e.name != "" && e.name != "." {
			p = p.Child(strings.TrimPrefix(e.name, "."))
		}
		value := e.value
		if !e.hasValue || value == nil {
			value = ""
		}
		switch e.code {
		case codeRequired:
			all = append(all, field.Required(p, ""))
		case codeEnum:
			values := make([]string, 0, len(e.values))
			for _, a := range e.values {
				if s, ok := a.(string); ok {
					values = append(values, s)
				} else {
					b, _ := json.Marshal(a)
					values = append(values, string(b))
				}
			}
			all = append(all, field.NotSupported(p, e.value, values))
		case codeTooLong:
			all = append(all, field.TooLong(p, "", int(asInt64(e.valid))))
		case codeMaxItems, codeTooManyProperties:
			all = append(all, field.TooMany(p, int(asInt64(e.value)), int(asInt64(e.valid))))
		case codeInvalidType:
			all = append(all, field.TypeInvalid(p, value, e.msg))
		default:
			all = append(all, field.Invalid(p, value, e.msg))
		}
	}
	return all
}

func asInt64(v any) int64 {
	if i, ok := v.(int64); ok {
		return i
	}
	return -1
}

// compileRE compiles a pattern with Go's RE2 engine, as the apiserver does (linear time).
func compileRE(pattern string) (*regexp.Regexp, error) { return regexp.Compile(pattern) }

// setNumberType sets the node's numeric type and format from its single type and its format
// (integer with int32/int64, number with float/double), as the value validator reads them.
func (n *vnode) setNumberType() {
	if len(n.types) != 1 {
		return
	}
	switch n.types[0] {
	case "integer":
		n.numType = "integer"
		if n.format == "int32" || n.format == "int64" {
			n.numFmt = n.format
		}
	case "number":
		n.numType = "number"
		if n.format == "float" || n.format == "double" {
			n.numFmt = n.format
		}
	}
}
