package cli

import (
	"fmt"
	"runtime/debug"
)

const (
	// writepathVersion is the version of this release of writepath.
	writepathVersion = "v0.1.0-dev"
	// kubernetesMinor is the Kubernetes release whose write path is modelled.
	kubernetesMinor = "1.37"
	// kubernetesVersion and referenceModules are the exact reference sources.
	kubernetesVersion = "v1.37.2"
	referenceModules  = "v0.37.2"
)

// moduleVersion returns the version of the writepath module this binary was
// built from, when the build knows it (go install ...@version), else the
// release constant.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return writepathVersion
}

func runVersion(e *env, args []string) int {
	var o output
	f := e.flags("version [-o yaml|json]",
		"Print the writepath version and the Kubernetes version whose API server it models.", "  writepath version -o json")
	f.Var(&o, "o", "output format: `yaml|json` (default: text)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	v := moduleVersion()
	if o != "" {
		if err := e.printValue(o, map[string]any{
			"writepathVersion":  v,
			"kubernetesVersion": kubernetesMinor,
			"kubernetes":        kubernetesVersion,
			"referenceModules":  referenceModules,
		}); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	fmt.Fprintf(e.stdout, "writepath %s\nmodels Kubernetes %s (kube-apiserver %s, k8s.io/* %s)\n", v, kubernetesMinor, kubernetesVersion, referenceModules)
	return exitOK
}
