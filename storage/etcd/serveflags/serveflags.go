// Package serveflags is the `writepath serve` hook (cli.ServeStore) of the etcd store:
// kube-apiserver's etcd flags and kube-controller-manager's leader-election flags.
package serveflags

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/cmd/writepath/cli"
	"github.com/writepath/writepath/internal/bounded"
	"github.com/writepath/writepath/storage/etcd"
)

// Flags holds the parsed flags.
type Flags struct {
	Servers                      []string
	Prefix                       string
	CAFile, CertFile, KeyFile    string
	LeaderElect                  bool
	Identity                     string
	LeaseDuration, RenewDeadline time.Duration
	RetryPeriod                  time.Duration
}

// New returns the flags with their defaults.
func New() *Flags { return &Flags{} }

// Add registers the flags.
func (f *Flags) Add(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.Servers, "etcd-servers", nil, "List of etcd servers to connect with (scheme://ip:port), comma separated; unset: an in-memory store")
	fs.StringVar(&f.Prefix, "etcd-prefix", etcd.DefaultPrefix, "The prefix to prepend to all resource paths in etcd")
	fs.StringVar(&f.CAFile, "etcd-cafile", "", "SSL Certificate Authority file used to secure etcd communication")
	fs.StringVar(&f.CertFile, "etcd-certfile", "", "SSL certification file used to secure etcd communication")
	fs.StringVar(&f.KeyFile, "etcd-keyfile", "", "SSL key file used to secure etcd communication")
	fs.BoolVar(&f.LeaderElect, "leader-elect", true, "With --etcd-servers: run the controllers only while holding the kube-system/kube-controller-manager Lease, as kube-controller-manager")
	fs.StringVar(&f.Identity, "leader-elect-identity", "", "The Lease holder identity (default hostname_pid)")
	fs.DurationVar(&f.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a non-leader waits after seeing the Lease unrenewed before taking it")
	fs.DurationVar(&f.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader retries renewing before it stops leading")
	fs.DurationVar(&f.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "How often the Lease is tried and the controllers resync")
}

// Hook is the cli.ServeStore of the flags.
func (f *Flags) Hook() *cli.ServeStore {
	return &cli.ServeStore{AddFlags: f.Add, Open: f.Open, Configure: f.Configure}
}

// Open connects to etcd when --etcd-servers is set and checks that it answers.
func (f *Flags) Open(ctx context.Context) (cluster.Store, func() error, error) {
	if len(f.Servers) == 0 {
		if f.CAFile != "" || f.CertFile != "" || f.KeyFile != "" {
			return nil, nil, cli.Usagef("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers")
		}
		return nil, nil, nil
	}
	for _, s := range f.Servers {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
			return nil, nil, cli.Usagef("--etcd-servers: %q is not scheme://host:port", s)
		}
	}
	tlsCfg, err := f.tls()
	if err != nil {
		return nil, nil, err
	}
	s, err := etcd.New(etcd.Options{Endpoints: f.Servers, Prefix: f.Prefix, TLS: tlsCfg})
	if err != nil {
		return nil, nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := s.Revision(cctx); err != nil {
		_ = s.Close()
		return nil, nil, fmt.Errorf("etcd %s: %w", strings.Join(f.Servers, ","), err)
	}
	return s, s.Close, nil
}

// Configure turns leader election on for an etcd store.
func (f *Flags) Configure(opts *cluster.Options) {
	if len(f.Servers) == 0 || !f.LeaderElect {
		return
	}
	id := f.Identity
	if id == "" {
		host, _ := os.Hostname()
		id = host + "_" + strconv.Itoa(os.Getpid())
	}
	opts.LeaderElection = &cluster.LeaderElection{Identity: id, LeaseDuration: f.LeaseDuration, RenewDeadline: f.RenewDeadline, RetryPeriod: f.RetryPeriod}
}

const maxPEMBytes = 1 << 20

func readPEM(path string) ([]byte, error) { return bounded.ReadFile(path, maxPEMBytes) }

func (f *Flags) tls() (*tls.Config, error) {
	if f.CAFile == "" && f.CertFile == "" && f.KeyFile == "" {
		return nil, nil
	}
	if (f.CertFile == "") != (f.KeyFile == "") {
		return nil, cli.Usagef("--etcd-certfile and --etcd-keyfile go together")
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CAFile != "" {
		ca, err := readPEM(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cafile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("--etcd-cafile %s: no PEM certificate", f.CAFile)
		}
		cfg.RootCAs = pool
	}
	if f.CertFile != "" {
		certPEM, err := readPEM(f.CertFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile: %w", err)
		}
		keyPEM, err := readPEM(f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-keyfile: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile/--etcd-keyfile: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
