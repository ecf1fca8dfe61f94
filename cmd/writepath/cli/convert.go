package cli

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/conversion"
)

func runConvert(e *env, args []string) int {
	var o output
	var files fileList
	f := e.flags("convert --crd CRD -f OBJECTS (--to VERSION | --check-roundtrip) [--webhook-url URL] [--ca-bundle FILE] [--timeout D] [-o yaml|json]",
		`Convert custom objects between the versions of their CustomResourceDefinition as
kube-apiserver 1.37 does.

With --to, each object is taken as stored (at the version of its apiVersion) and read
through VERSION: coerced and defaulted at its own version, converted with the CRD's strategy
(None: apiVersion rewritten; Webhook: a ConversionReview sent to the webhook), then pruned by
VERSION's schema. The deprecation warning of VERSION is printed as the server sends it. A
version the CRD does not serve is the server's 404.

With --check-roundtrip, each object goes A -> storage -> A and storage -> B -> storage for
every other served version B; every lost, changed or added field is printed with its path.
Exit status 1 if any conversion loses data or fails.

--webhook-url replaces the CRD's webhook address (needed for a service reference);
--ca-bundle FILE replaces its caBundle: writepath convert --crd CRD -f OBJECTS --to v2
--webhook-url https://localhost:9443/convert --ca-bundle ca.pem calls a running webhook.`,
		`  # What a GET through v1beta1 returns for objects stored at other versions
  writepath convert --crd testdata/conversion/widgets-crd.yaml -f testdata/conversion/widgets.yaml --to v1beta1

  # Does converting lose data?
  writepath convert --check-roundtrip --crd testdata/conversion/widgets-crd.yaml -f testdata/conversion/widgets.yaml`)
	var crdFiles fileList
	f.Var(&crdFiles, "crd", "the CustomResourceDefinition `FILE` (apiextensions.k8s.io/v1)"+crdUsage)
	f.Var(&files, "f", "`FILE` with the objects, multi-document YAML or JSON (- for stdin; repeatable)")
	to := f.String("to", "", "the `VERSION` to read the objects through")
	check := f.Bool("check-roundtrip", false, "check that conversions lose nothing (exit 1 on loss)")
	webhookURL := f.String("webhook-url", "", "`URL` of the conversion webhook (overrides the CRD's clientConfig)")
	caFile := f.String("ca-bundle", "", "PEM `FILE` of the CA that signed the webhook's certificate")
	timeout := f.Duration("timeout", conversion.DefaultTimeout, "`DURATION` of a webhook call")
	f.Var(&o, "o", "output format: `yaml|json` (default yaml; --check-roundtrip: text)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if len(files) == 0 {
		return e.fail(usagef("both --crd FILE and -f FILE are required"))
	}
	if (*to == "") == !*check {
		return e.fail(usagef("give exactly one of --to VERSION and --check-roundtrip"))
	}
	crdDocs, err := e.readCRDs(crdFiles)
	if err != nil {
		return e.fail(err)
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	objs, crdDocs = takeCRDs(objs, crdDocs)
	if len(crdDocs) == 0 {
		return e.fail(usagef("both --crd FILE and -f FILE are required"))
	}
	crdDoc := crdDocs[0]
	if len(objs) > 0 {
		if crdDoc, err = crdFor(crdDocs, objs[0]); err != nil {
			return e.fail(err)
		}
	}
	crd, err := conversion.FromCRD(crdDoc)
	if err != nil {
		return e.fail(err)
	}
	opts := conversion.Options{}
	if *webhookURL != "" || *caFile != "" {
		if crd.Strategy != conversion.StrategyWebhook {
			return e.fail(usagef("--webhook-url and --ca-bundle need a CRD with conversion strategy Webhook; %s has %s", crd.Schema.Name, crd.Strategy))
		}
		co := conversion.ClientOptions{URL: *webhookURL, Timeout: *timeout}
		if *caFile != "" {
			ca, err := e.readFile(*caFile)
			if err != nil {
				return e.fail(&inputError{err: err})
			}
			co.CABundle = ca
		}
		cl, err := conversion.NewClient(crd, co)
		if err != nil {
			return e.fail(err)
		}
		opts.Caller = cl
	} else if crd.Strategy == conversion.StrategyWebhook {
		cl, err := conversion.NewClient(crd, conversion.ClientOptions{Timeout: *timeout})
		if err != nil {
			return e.fail(err)
		}
		opts.Caller = cl
	}
	c, err := conversion.New(crd, opts)
	if err != nil {
		return e.fail(err)
	}
	if *check {
		return e.checkRoundTrip(c, objs, o)
	}
	_, warnings, err := crd.Plan(conversion.Request{Verb: "get", Version: *to})
	if err != nil {
		return e.fail(fmt.Errorf("--to %s: the server could not find the requested resource (%w)", *to, err))
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	out := make([]any, 0, len(objs))
	for i, obj := range objs {
		r, err := c.Read(obj, *to)
		if err != nil {
			return e.fail(fmt.Errorf("object %d (%s): %w", i, describe(obj), err))
		}
		out = append(out, r)
	}
	var v any = map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": out}
	if len(out) == 1 {
		v = out[0]
	}
	if err := e.printValue(o, v); err != nil {
		return e.fail(err)
	}
	return exitOK
}

func describe(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", av, k, name))
}

func (e *env) checkRoundTrip(c *conversion.Converter, objs []map[string]any, o output) int {
	res := c.CheckRoundTrip(objs)
	lossy := false
	if o != "" {
		var out []any
		for _, rt := range res {
			m := map[string]any{"object": rt.Object, "path": strings.Join(rt.Path, " -> "), "lossless": rt.Lossless()}
			if rt.Err != nil {
				m["error"] = rt.Err.Error()
			}
			var changes []any
			for _, ch := range rt.Changes {
				changes = append(changes, ch.String())
			}
			if len(changes) > 0 {
				m["changes"] = changes
			}
			lossy = lossy || !rt.Lossless()
			out = append(out, m)
		}
		if err := e.printValue(o, out); err != nil {
			return e.fail(err)
		}
	} else {
		for _, rt := range res {
			state := "lossless"
			switch {
			case rt.Err != nil:
				state = "error: " + rt.Err.Error()
			case len(rt.Changes) > 0:
				state = fmt.Sprintf("%d field(s) not preserved", len(rt.Changes))
			}
			fmt.Fprintf(e.stdout, "%s: %s: %s\n", rt.Object, strings.Join(rt.Path, " -> "), state)
			for _, ch := range rt.Changes {
				fmt.Fprintf(e.stdout, "  %s\n", ch)
			}
			lossy = lossy || !rt.Lossless()
		}
	}
	if lossy {
		return exitNegative
	}
	return exitOK
}
