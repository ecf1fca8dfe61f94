package cel

import (
	"fmt"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// The apiserver's CEL limits (k8s.io/apiserver/pkg/apis/cel and pkg/cel/limits.go).
const (
	// PerCallLimit is the runtime cost limit of one expression evaluation.
	PerCallLimit = 1000000
	// RuntimeCELCostBudget is the runtime cost budget of all CEL rules of one custom resource
	// write (or one policy binding).
	RuntimeCELCostBudget = 10000000
	// StaticEstimatedCostLimit is the estimated cost limit of one CRD rule.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit is the estimated cost limit of all rules of a CRD version.
	StaticEstimatedCRDCostLimit = 100000000
	// MaxRequestSizeBytes bounds the size of unbounded strings and lists in cost estimates.
	MaxRequestSizeBytes = int64(3 * 1024 * 1024)

	MaxDurationSizeJSON    = 32
	MaxDatetimeSizeJSON    = 32
	MinDurationSizeJSON    = 3
	JSONDateSize           = 12
	MinDatetimeSizeJSON    = 21
	MinStringSize          = 2
	MinBoolSize            = 4
	MinNumberSize          = 1
	MaxFormatSize          = 64
	MaxNameFormatRegexSize = 128
)

// Version is a Kubernetes compatibility version (major is always 1).
type Version struct{ Minor int }

// V1_37 is the compatibility version writepath models; V1_36 is the one kube-apiserver 1.37
// compiles new expressions with by default (its minimum compatibility version, n-1).
var (
	V1_37 = Version{Minor: 37}
	V1_36 = Version{Minor: 36}
)

type versionedOptions struct {
	introduced, removed int // minor versions; removed 0 = never
	env                 []celgo.EnvOption
	prog                []celgo.ProgramOption
}

// baseOptions mirrors k8s.io/apiserver/pkg/cel/environment/base.go: which option is on from
// (and until) which 1.x minor.
func baseOptions() []versionedOptions {
	return []versionedOptions{
		{introduced: 0, env: []celgo.EnvOption{
			celgo.HomogeneousAggregateLiterals(),
			celgo.EagerlyValidateDeclarations(true),
			celgo.DefaultUTCTimeZone(true),
			celgo.Lib(&urlsLib{}),
			celgo.Lib(&regexLib{}),
			celgo.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		}, prog: []celgo.ProgramOption{
			celgo.EvalOptions(celgo.OptOptimize, celgo.OptTrackCost),
			celgo.CostLimit(PerCallLimit),
			celgo.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		}},
		{introduced: 0, removed: 37, env: []celgo.EnvOption{celgo.Lib(&listsLib{version: 0})}},
		{introduced: 27, env: []celgo.EnvOption{celgo.Lib(&authzLib{})}},
		{introduced: 28, env: []celgo.EnvOption{
			celgo.CrossTypeNumericComparisons(true),
			celgo.OptionalTypes(),
			celgo.Lib(&quantityLib{}),
		}},
		{introduced: 29, env: []celgo.EnvOption{celgo.ASTValidators(
			celgo.ValidateDurationLiterals(),
			celgo.ValidateTimestampLiterals(),
			celgo.ValidateRegexLiterals(),
			celgo.ValidateHomogeneousAggregateLiterals(),
		)}},
		{introduced: 0, removed: 29, env: []celgo.EnvOption{ext.Strings(ext.StringsVersion(0))}},
		{introduced: 29, env: []celgo.EnvOption{ext.Strings(ext.StringsVersion(2))}},
		{introduced: 29, env: []celgo.EnvOption{ext.Sets()}},
		{introduced: 30, env: []celgo.EnvOption{celgo.Lib(&ipLib{}), celgo.Lib(&cidrLib{})}},
		{introduced: 31, env: []celgo.EnvOption{celgo.Lib(&formatLib{})}},
		{introduced: 31, env: []celgo.EnvOption{celgo.Lib(&authzSelectorsLib{})}},
		{introduced: 32, env: []celgo.EnvOption{ext.TwoVarComprehensions()}},
		{introduced: 33, env: []celgo.EnvOption{celgo.Lib(&semverLib{version: 1})}},
		{introduced: 34, env: []celgo.EnvOption{ext.Lists(ext.ListsVersion(3))}},
		{introduced: 37, env: []celgo.EnvOption{celgo.Lib(&listsLib{version: 1})}},
		// StrictCostOpt: the library functions are priced by CostEstimator at run time.
		{introduced: 0, prog: []celgo.ProgramOption{celgo.CostTracking(&CostEstimator{})}},
	}
}

// envOptions returns the options of the base environment at v.
func envOptions(v Version) ([]celgo.EnvOption, []celgo.ProgramOption) {
	var env []celgo.EnvOption
	var prog []celgo.ProgramOption
	for _, o := range baseOptions() {
		if v.Minor >= o.introduced && (o.removed == 0 || v.Minor < o.removed) {
			env = append(env, o.env...)
			prog = append(prog, o.prog...)
		}
	}
	return env, prog
}

// programOptionsLib carries the base program options so that every program built from the
// environment (or an extension of it) gets them, as the apiserver's envLoader library does.
type programOptionsLib struct{ prog []celgo.ProgramOption }

func (l *programOptionsLib) CompileOptions() []celgo.EnvOption     { return nil }
func (l *programOptionsLib) ProgramOptions() []celgo.ProgramOption { return l.prog }

type baseEnv struct {
	once sync.Once
	env  *celgo.Env
	err  error
}

var baseEnvs sync.Map // Version -> *baseEnv

// BaseEnv returns the apiserver's base CEL environment at compatibility version v: no
// variables; programs built from it (or from its extensions) track cost with the Kubernetes
// library prices and stop at PerCallLimit. It is built once per version and shared: cel-go
// environments are safe for concurrent use. Supported versions are 1.27 and later.
func BaseEnv(v Version) (*celgo.Env, error) {
	if v.Minor < 27 {
		return nil, fmt.Errorf("unsupported CEL compatibility version 1.%d", v.Minor)
	}
	e, _ := baseEnvs.LoadOrStore(v, &baseEnv{})
	b := e.(*baseEnv)
	b.once.Do(func() {
		envOpts, progOpts := envOptions(v)
		envOpts = append(envOpts, celgo.Lib(&programOptionsLib{prog: progOpts}))
		b.env, b.err = celgo.NewEnv(envOpts...)
	})
	return b.env, b.err
}
