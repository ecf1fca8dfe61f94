package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

const serveLong = `Serve an in-memory Kubernetes API server: kube-apiserver 1.37's request path (registry) over an
in-memory store, with the garbage collector, namespace, service account, Deployment and
ReplicaSet and resource quota controllers running after writes. It listens on 127.0.0.1 over HTTPS with a generated
self-signed certificate, writes a kubeconfig (server, CA data, bearer token) for kubectl and
client-go, creates what kube-apiserver creates when it starts (the system namespaces, the
default/kubernetes Service, the RBAC bootstrap policy, the system PriorityClasses, API Priority and
Fairness' configuration, the local APIServices) but what the -f objects (created first: CRDs
first, namespaces as needed) hold already, and runs until
interrupted. JSON, YAML and protobuf bodies; lists and watches with selectors, limit/continue and
resourceVersion semantics; legacy and aggregated discovery; /openapi/v2 and /openapi/v3 (kubectl
explain, apply and diff read them; CRDs from their schemas); Table output with kube-apiserver's
printer columns (kubectl get, get -o wide, get -w) and PartialObjectMetadata (JSON and protobuf).

--controllers takes kube-controller-manager's syntax (a comma-separated list: NAME turns a
controller on, -NAME off, * is every controller on by default): deployment and replicaset can be
turned off, together (--controllers=*,-deployment,-replicaset, or a list that names neither, such
as garbagecollector,namespace), for a server without them as envtest's control plane is, and so
can resourcequota (-resourcequota: ResourceQuotas then get no status) and serviceaccount
(-serviceaccount: namespaces get no "default" ServiceAccount, as on envtest's control plane); the
garbage collector, namespace and storage protection controllers always run.

%s

Not served yet: RBAC; every authenticated request is the admin user.`

const serveExamples = `  # Serve the README's examples, then talk to it with kubectl
  writepath serve -f testdata/examples/crontab-crd.yaml -f testdata/examples/crontab.yaml --kubeconfig /tmp/writepath.kubeconfig &
  kubectl --kubeconfig /tmp/writepath.kubeconfig get --raw /api/v1/namespaces

  # A fixed port, requests logged on stderr
  writepath serve --port 6443 -v

  # As envtest's control plane: no Deployment and ReplicaSet controllers
  writepath serve --controllers=*,-deployment,-replicaset

  # Closer still: no resource quota and service account controllers, and no ServiceAccount
  # admission plugin (envtest starts kube-apiserver with --disable-admission-plugins=ServiceAccount)
  writepath serve --controllers=*,-deployment,-replicaset,-resourcequota,-serviceaccount --disable-admission-plugins=ServiceAccount`

// serveHelp is serveLong with its --disable-admission-plugins paragraph, which names the
// admission plugins writepath runs (registry.AdmissionPlugins).
func serveHelp() string {
	var names []string
	for _, p := range registry.AdmissionPlugins() {
		if p.Modelled {
			names = append(names, p.Name)
		}
	}
	para := "--disable-admission-plugins takes kube-apiserver's syntax (a comma-separated list of plugin " +
		"names): a named default-on plugin does not run, changing and refusing nothing. The plugins " +
		"writepath runs, each of which can be disabled: " + strings.Join(names, ", ") + ". Any other " +
		"plugin kube-apiserver 1.37 knows may be named too, and changes nothing; an unknown name is " +
		"refused as kube-apiserver refuses it. writepath runs no default-off plugin, so there is no " +
		"--enable-admission-plugins."
	return fmt.Sprintf(serveLong, fill(para, 100))
}

// fill breaks text into lines of at most width characters, between words.
func fill(text string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

func runServe(e *env, args []string) int {
	var files fileList
	var port int
	var kubeconfig string
	var verbose bool
	var controllers, disabledPlugins []string
	f := e.flags("serve [-f FILE]... [--port N] [--kubeconfig FILE] [--controllers LIST] [--disable-admission-plugins LIST] [-v]", serveHelp(), serveExamples)
	f.Var(&files, "f", "FILE of objects to create at start (repeatable; multi-document YAML or JSON; - for stdin)")
	f.IntVar(&port, "port", 0, "the port on 127.0.0.1 (0: a free port)")
	f.StringVar(&kubeconfig, "kubeconfig", "writepath.kubeconfig", "FILE to write the kubeconfig to")
	f.BoolVar(&verbose, "v", false, "log each request on stderr")
	f.StringSliceVar(&controllers, "controllers", []string{"*"}, "the controllers that run, as kube-controller-manager's --controllers (only deployment and replicaset, together, resourcequota and serviceaccount can be off)")
	f.StringSliceVar(&disabledPlugins, "disable-admission-plugins", nil, "admission plugins that do not run although default on, as kube-apiserver's flag (comma-separated; see above)")
	if hook := e.opts.ServeStore; hook != nil && hook.AddFlags != nil {
		if err := addHookFlags(f, hook.AddFlags); err != nil {
			return e.fail(err)
		}
	}
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() != 0 {
		return e.fail(usagef("serve takes no arguments, got %d", f.NArg()))
	}
	if port < 0 || port > 65535 {
		return e.fail(usagef("--port must be between 0 and 65535, got %d", port))
	}
	off, err := readControllers(controllers)
	if err != nil {
		return e.fail(err)
	}
	// kube-apiserver's words for an unknown name (AdmissionOptions.Validate).
	if err := registry.ValidateDisabledAdmissionPlugins(disabledPlugins); err != nil {
		return e.fail(usagef("%v", err))
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := serveConfig{objects: objs, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), kubeconfig: kubeconfig, verbose: verbose, noWorkloads: off.workloads, noQuota: off.resourceQuota, noSA: off.serviceAccount, disabledPlugins: disabledPlugins}
	if e.testServe != nil {
		ctx = e.testServe(ctx, &cfg)
	}
	if hook := e.opts.ServeStore; hook != nil && hook.Open != nil {
		store, closeStore, err := hook.Open(ctx)
		if err != nil {
			return e.fail(err)
		}
		if closeStore != nil {
			defer func() {
				if err := closeStore(); err != nil {
					fmt.Fprintf(e.stderr, "error: closing the store: %v\n", err)
				}
			}()
		}
		cfg.store = store
	}
	return e.serve(ctx, cfg)
}

// serveControllers are the controllers serve runs, by kube-controller-manager's names and
// aliases (cmd/kube-controller-manager/names); only the optional ones can be turned off.
var serveControllers = []struct {
	name, alias string
	optional    bool
}{
	{"garbage-collector-controller", "garbagecollector", false},
	{"namespace-controller", "namespace", false},
	{"serviceaccount-controller", "serviceaccount", true},
	{"persistentvolumeclaim-protection-controller", "pvc-protection", false},
	{"persistentvolume-protection-controller", "pv-protection", false},
	{"volumeattributesclass-protection-controller", "", false},
	{"deployment-controller", "deployment", true},
	{"replicaset-controller", "replicaset", true},
	{"resourcequota-controller", "resourcequota", true},
}

// controllersOff are the optional controllers --controllers turns off.
type controllersOff struct {
	workloads      bool // deployment and replicaset
	resourceQuota  bool
	serviceAccount bool
}

// readControllers reads --controllers as kube-controller-manager reads it (IsControllerEnabled:
// the first item that names a controller, NAME or -NAME, decides; else it is on when the list
// has *; aliases are its names) and says which optional controllers are off: the Deployment
// and ReplicaSet controllers (on or off together), the resource quota controller and the
// service account controller. The
// others always run, so turning one of them off is refused, as is a name serve does not know.
func readControllers(list []string) (controllersOff, error) {
	canonical := map[string]string{}
	var names []string
	for _, sc := range serveControllers {
		canonical[sc.name] = sc.name
		names = append(names, sc.name)
		if sc.alias != "" {
			canonical[sc.alias] = sc.name
			names = append(names, sc.alias)
		}
	}
	decided := map[string]bool{}
	star := false
	for _, item := range list {
		on, n := true, item
		if strings.HasPrefix(n, "-") {
			on, n = false, n[1:]
		}
		if item == "*" {
			star = true
			continue
		}
		name, ok := canonical[n]
		if !ok {
			return controllersOff{}, usagef("--controllers: %q is not a controller serve runs (%s; -NAME; *)", item, strings.Join(names, ", "))
		}
		if _, seen := decided[name]; !seen {
			decided[name] = on
		}
	}
	enabled := func(name string) bool {
		if on, ok := decided[name]; ok {
			return on
		}
		return star
	}
	for _, sc := range serveControllers {
		if !sc.optional && !enabled(sc.name) {
			if _, named := decided[sc.name]; named {
				return controllersOff{}, usagef("--controllers: %s always runs in serve; only deployment and replicaset (together), resourcequota and serviceaccount can be turned off", sc.name)
			}
		}
	}
	if enabled("deployment-controller") != enabled("replicaset-controller") {
		return controllersOff{}, usagef("--controllers: deployment and replicaset run together in serve; turn both on or both off")
	}
	return controllersOff{workloads: !enabled("deployment-controller"), resourceQuota: !enabled("resourcequota-controller"), serviceAccount: !enabled("serviceaccount-controller")}, nil
}

// addHookFlags registers the flags of Options.ServeStore on serve's flag set.
func addHookFlags(f *flags, add func(*pflag.FlagSet)) error {
	hookFlags := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	add(hookFlags)
	var err error
	hookFlags.VisitAll(func(fl *pflag.Flag) {
		if err == nil && (f.FlagSet.Lookup(fl.Name) != nil || fl.Shorthand != "" && f.FlagSet.ShorthandLookup(fl.Shorthand) != nil) {
			err = usagef("the serve store hook's flag --%s is one of serve's own", fl.Name)
			return
		}
		f.FlagSet.AddFlag(fl)
	})
	return err
}

type serveConfig struct {
	objects    []map[string]any
	addr       string
	kubeconfig string
	verbose    bool
	// noWorkloads turns the Deployment and ReplicaSet controllers off (--controllers).
	noWorkloads bool
	// noQuota turns the resource quota controller off (--controllers).
	noQuota bool
	// noSA turns the service account controller off (--controllers).
	noSA bool
	// disabledPlugins are --disable-admission-plugins.
	disabledPlugins []string
	// store is the store to serve from; nil is the in-memory one.
	store cluster.Store
	// ready, when set, is told the server's URL once it answers.
	ready func(url string)
}

// serve runs the server until ctx is done.
func (e *env) serve(ctx context.Context, cfg serveConfig) int {
	opts := cluster.Options{Store: cfg.store, NoWorkloadControllers: cfg.noWorkloads, NoResourceQuotaController: cfg.noQuota, NoServiceAccountController: cfg.noSA, DisableAdmissionPlugins: cfg.disabledPlugins}
	if hook := e.opts.ServeStore; hook != nil && hook.Configure != nil {
		hook.Configure(&opts)
	}
	c, err := cluster.New(opts)
	if err != nil {
		return e.fail(err)
	}
	if opts.LeaderElection != nil {
		leadCtx, stopLeading := context.WithCancel(ctx)
		led := make(chan struct{})
		go func() { defer close(led); _ = c.Lead(leadCtx) }()
		defer func() { stopLeading(); <-led }()
	}
	if err := c.Load(ctx, cfg.objects); err != nil {
		return e.fail(&inputError{err: err})
	}
	// As kube-apiserver starts (cluster.Bootstrap: the system namespaces, the kubernetes
	// Service, the RBAC policy, ...); what the -f objects hold already is theirs.
	if err := c.Bootstrap(ctx); err != nil {
		return e.fail(err)
	}
	var wrap func(http.Handler) http.Handler
	if cfg.verbose {
		wrap = func(h http.Handler) http.Handler { return logRequests(h, e) }
	}
	srv, err := cluster.Listen(c, cfg.addr, wrap)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	defer srv.Close()
	if err := os.WriteFile(cfg.kubeconfig, srv.Kubeconfig(), 0o600); err != nil {
		return e.fail(&inputError{err: err})
	}
	fmt.Fprintf(e.stdout, "serving on %s\nkubeconfig: %s\n", srv.URL, cfg.kubeconfig)
	if cfg.ready != nil {
		cfg.ready(srv.URL)
	}
	<-ctx.Done()
	return exitOK
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) { r.code = code; r.ResponseWriter.WriteHeader(code) }
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func logRequests(h http.Handler, e *env) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: 200}
		h.ServeHTTP(rec, r)
		fmt.Fprintf(e.stderr, "%s %s %d %s\n", r.Method, r.URL.RequestURI(), rec.code, time.Since(start).Round(time.Microsecond))
	})
}
