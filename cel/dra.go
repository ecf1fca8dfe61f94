package cel

import (
	"fmt"
	"math"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
)

// The device selectors of resource.k8s.io (DeviceClass, ResourceClaim requests) are compiled by
// their strategies' validation in the environment of k8s.io/dynamic-resource-allocation/cel:
// the base environment at the compatibility version (new expressions, 1.36), cel.bind, and one
// variable, device, whose fields the feature gates choose. 1.37's defaults (DRAConsumableCapacity
// on, DRAListTypeAttributes off) give device allowMultipleAllocations, driver, attributes (a map
// of domains to maps of identifiers to any value) and capacity (the same to quantities), each
// bounded as the reference bounds them for cost estimation.

// DeviceSelectorMaxCost is resource.CELSelectorExpressionMaxCost, the estimated cost a device
// selector may not exceed.
const DeviceSelectorMaxCost = 1000000

// Bounds of the device variable (k8s.io/api/resource/v1).
const (
	deviceMaxDomainLength       = 63
	deviceMaxIDLength           = 32
	driverNameMaxLength         = 63
	deviceAttributeMaxValueLen  = 64
	maxAttributesAndCapacities  = 32
	deviceVarName               = "device"
	deviceTypeName              = "kubernetes.DRADevice"
	deviceAttributesFieldName   = "attributes"
	deviceMultiAllocFieldName   = "allowMultipleAllocations"
	deviceDriverFieldName       = "driver"
	deviceCapacityFieldName     = "capacity"
	deviceSelectorResultMessage = "must evaluate to %v or the unknown type, not %v"
)

// DeviceSelectorResult is the outcome of compiling one device selector.
type DeviceSelectorResult struct {
	// Err is the reference's error detail ("compilation failed: ...", "must evaluate to bool
	// or the unknown type, not int"), "" when the expression compiles.
	Err string
	// Internal says Err is an internal error (the environment, cost estimation), not the
	// expression's.
	Internal bool
	// MaxCost is the estimated worst-case cost (math.MaxUint64 after an error).
	MaxCost uint64
}

type draEnv struct {
	once      sync.Once
	env       *celgo.Env
	device    *DeclType
	attribute *DeclType
	err       error
}

var deviceEnv draEnv

func withMax(t *DeclType, n int64) *DeclType {
	c := *t
	c.MaxElements = n
	return &c
}

// buildDeviceEnv is newCompiler's environment for new expressions under 1.37's default gates.
func (d *draEnv) build() {
	base, err := BaseEnv(V1_36)
	if err != nil {
		d.err = err
		return
	}
	domain := withMax(StringDeclType, deviceMaxDomainLength)
	id := withMax(StringDeclType, deviceMaxIDLength)
	driver := withMax(StringDeclType, driverNameMaxLength)
	multiAlloc := withMax(BoolDeclType, 1)
	d.attribute = withMax(AnyDeclType, deviceAttributeMaxValueLen)
	inner := newMapType(id, d.attribute, maxAttributesAndCapacities)
	outer := newMapType(domain, inner, maxAttributesAndCapacities)
	quantity := newSimple("quantity", QuantityType, 8)
	innerCap := newMapType(id, quantity, maxAttributesAndCapacities)
	outerCap := newMapType(domain, innerCap, maxAttributesAndCapacities)
	d.device = newObjectType(deviceTypeName, map[string]*DeclField{
		deviceMultiAllocFieldName: {Name: deviceMultiAllocFieldName, Type: multiAlloc, Required: true},
		deviceDriverFieldName:     {Name: deviceDriverFieldName, Type: driver, Required: true},
		deviceAttributesFieldName: {Name: deviceAttributesFieldName, Type: outer, Required: true},
		deviceCapacityFieldName:   {Name: deviceCapacityFieldName, Type: outerCap, Required: true},
	})
	d.env, d.err = base.Extend(
		ext.Bindings(ext.BindingsVersion(0)),
		celgo.Variable(deviceVarName, d.device.CelType()),
		celgo.CustomTypeProvider(NewDeclTypeProvider(base.CELTypeProvider(), true, d.device)),
	)
}

// CompileDeviceSelector compiles a device selector as the DRA compiler does for a new
// expression (dracel.CompileCELExpression with environment.NewExpressions): the expression
// must compile and evaluate to bool (or the attribute type, any); its cost is estimated with
// the device variable's bounds. It is safe for concurrent use.
func CompileDeviceSelector(expression string) DeviceSelectorResult {
	fail := func(detail string, internal bool) DeviceSelectorResult {
		return DeviceSelectorResult{Err: detail, Internal: internal, MaxCost: math.MaxUint64}
	}
	deviceEnv.once.Do(deviceEnv.build)
	if deviceEnv.err != nil {
		return fail(fmt.Sprintf("unexpected error loading CEL environment: %v", deviceEnv.err), true)
	}
	env := deviceEnv.env
	ast, issues := env.Compile(expression)
	if issues != nil {
		return fail("compilation failed: "+issues.String(), false)
	}
	t := ast.OutputType()
	if !t.IsExactType(celgo.BoolType) && !t.IsExactType(deviceEnv.attribute.CelType()) {
		return fail(fmt.Sprintf(deviceSelectorResultMessage, celgo.BoolType.String(), t.String()), false)
	}
	est, err := env.EstimateCost(ast, &CostEstimator{SizeEstimator: deviceSizes(deviceEnv.device, deviceEnv.attribute)})
	if err != nil {
		return fail("cost estimation failed: "+err.Error(), true)
	}
	return DeviceSelectorResult{MaxCost: est.Max}
}

// deviceSizes is the DRA compiler's size estimator: the bounds of what device's paths can hold,
// as the reference's sizeEstimator gives them; a field an attribute map does not declare (an
// attribute's id) is an attribute.
func deviceSizes(device, attribute *DeclType) *sizeEstimator {
	return &sizeEstimator{root: device, variable: deviceVarName, undeclared: func(cur *DeclType) *DeclType {
		if cur.ElemType == attribute {
			return attribute
		}
		return nil
	}}
}
