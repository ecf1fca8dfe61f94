package envtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/writepath/writepath/cluster"
)

// CRDInstallOptions are controller-runtime's: which CRDs to install and how long to wait for them.
type CRDInstallOptions = crenvtest.CRDInstallOptions

// WebhookInstallOptions are controller-runtime's: webhook configurations to install, pointed at a
// local webhook server with a generated CA.
type WebhookInstallOptions = crenvtest.WebhookInstallOptions

// Environment is a test API server: controller-runtime's envtest.Environment with writepath's
// in-memory server in place of kube-apiserver and etcd. The zero value is ready to Start.
type Environment struct {
	// Scheme is used for the CRD conversion webhooks; nil is client-go's scheme.Scheme.
	Scheme *runtime.Scheme
	// Config is the client configuration of the server, set by Start (or given, with
	// UseExistingCluster).
	Config *rest.Config
	// KubeConfig is the kubeconfig of the server, set by Start when empty.
	KubeConfig []byte
	// CRDInstallOptions are the CRDs to install and how.
	CRDInstallOptions CRDInstallOptions
	// WebhookInstallOptions are the webhook configurations to install.
	WebhookInstallOptions WebhookInstallOptions
	// ErrorIfCRDPathMissing makes a missing CRD directory an error.
	ErrorIfCRDPathMissing bool
	// CRDs are installed at Start, with those in CRDInstallOptions.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// CRDDirectoryPaths are directories or files of CRDs installed at Start.
	CRDDirectoryPaths []string
	// UseExistingCluster uses the cluster of KUBECONFIG (or Config) instead of starting one; nil
	// reads the USE_EXISTING_CLUSTER environment variable, as controller-runtime does.
	UseExistingCluster *bool
	// Options configures the cluster Start serves (its clock, seed, controllers, kubelet);
	// Tokens is ignored: the server takes one admin bearer token.
	Options cluster.Options

	server *cluster.Server
}

func (te *Environment) useExistingCluster() bool {
	if te.UseExistingCluster == nil {
		return strings.ToLower(os.Getenv("USE_EXISTING_CLUSTER")) == "true"
	}
	return *te.UseExistingCluster
}

// Server returns the cluster Start serves (nil before Start or with UseExistingCluster), for a
// test that wants to settle its controllers, step its clock or read its store directly.
func (te *Environment) Server() *cluster.Server { return te.server }

// Start starts a fresh server, installs the CRDs and webhook configurations, and returns the
// server's client configuration.
//
// With its own server, Start does what controller-runtime's InstallCRDs does (read the CRD files,
// point the CRDs of the scheme's convertible kinds at the local conversion webhook, create or
// update each CRD, wait until discovery lists every served version's resource) in-process: the
// CRDs are POSTed through the cluster's request path as the same admin user and user agent a
// client-go client would send, and discovery is read from the cluster, with no client, RESTMapper
// or poll. The webhook CA, which controller-runtime always generates, is made while the server
// starts. With UseExistingCluster, controller-runtime's InstallCRDs runs unchanged.
func (te *Environment) Start() (*rest.Config, error) {
	if te.Scheme == nil {
		te.Scheme = scheme.Scheme
	}
	if te.useExistingCluster() {
		if te.Config == nil {
			cfg, err := config.GetConfig()
			if err != nil {
				return nil, fmt.Errorf("unable to get configuration for existing cluster: %w", err)
			}
			te.Config = cfg
		}
		if err := te.WebhookInstallOptions.PrepWithoutInstalling(); err != nil {
			return nil, err
		}
	} else {
		// The webhook CA and serving certificate (key generation and two signatures) take as
		// long as the server's start: both at once.
		prepared := make(chan error, 1)
		go func() { prepared <- te.WebhookInstallOptions.PrepWithoutInstalling() }()
		err := te.startServer()
		if perr := <-prepared; err == nil && perr != nil {
			te.server.Close()
			te.server = nil
			err = perr
		}
		if err != nil {
			return nil, err
		}
	}
	if te.CRDInstallOptions.Scheme == nil {
		te.CRDInstallOptions.Scheme = te.Scheme
	}
	te.CRDInstallOptions.CRDs = append(te.CRDInstallOptions.CRDs, te.CRDs...)
	te.CRDInstallOptions.Paths = append(te.CRDInstallOptions.Paths, te.CRDDirectoryPaths...)
	te.CRDInstallOptions.ErrorIfPathMissing = te.ErrorIfCRDPathMissing
	te.CRDInstallOptions.WebhookOptions = te.WebhookInstallOptions
	if te.CRDInstallOptions.PollInterval == 0 {
		te.CRDInstallOptions.PollInterval = 5 * time.Millisecond // the server establishes a CRD as it stores it
	}
	// InstallCRDs of nothing installs nothing, but first scans every type of the scheme for
	// conversion webhooks (half of an empty Start's time): skipped when there is nothing.
	if len(te.CRDInstallOptions.CRDs) > 0 || len(te.CRDInstallOptions.Paths) > 0 {
		var crds []*apiextensionsv1.CustomResourceDefinition
		var err error
		if te.server != nil {
			crds, err = installCRDs(te.server, te.Config, te.CRDInstallOptions)
		} else {
			crds, err = crenvtest.InstallCRDs(te.Config, te.CRDInstallOptions)
		}
		if err != nil {
			return te.Config, fmt.Errorf("unable to install CRDs onto control plane: %w", err)
		}
		te.CRDs = crds
	}
	if err := te.WebhookInstallOptions.Install(te.Config); err != nil {
		return nil, fmt.Errorf("unable to install webhooks onto control plane: %w", err)
	}
	return te.Config, nil
}

// startServer makes a fresh, bootstrapped cluster (cluster.Bootstrap) and serves it on loopback HTTPS.
func (te *Environment) startServer() error {
	opts := te.Options
	opts.Tokens = nil
	c, err := cluster.New(opts)
	if err != nil {
		return fmt.Errorf("unable to start the control plane: %w", err)
	}
	if err := c.Bootstrap(context.Background()); err != nil {
		return fmt.Errorf("unable to bootstrap the server: %w", err)
	}
	te.server = cluster.StartTLS(c)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(te.server.Kubeconfig())
	if err != nil {
		te.server.Close()
		te.server = nil
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	te.Config = cfg
	if len(te.KubeConfig) == 0 {
		te.KubeConfig = te.server.Kubeconfig()
	}
	return nil
}

// Stop uninstalls the CRDs when CRDInstallOptions.CleanUpAfterUse is set, removes the webhook
// server's certificates and stops the server.
func (te *Environment) Stop() error {
	if te.CRDInstallOptions.CleanUpAfterUse && te.Config != nil {
		if err := crenvtest.UninstallCRDs(te.Config, te.CRDInstallOptions); err != nil {
			return err
		}
	}
	if err := te.WebhookInstallOptions.Cleanup(); err != nil {
		return err
	}
	if te.server != nil {
		te.server.Close()
		te.server = nil
	}
	return nil
}
