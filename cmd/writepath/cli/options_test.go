package cli

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/writepath/writepath/cluster"
)

// TestServeStoreHook checks the hook another module's binary plugs into serve: its flags are
// serve's (in --help, parsed before Open runs), a clash with serve's own flags is bad usage, and
// Open's errors stop serve with the documented exit codes.
func TestServeStoreHook(t *testing.T) {
	var servers string
	var opened []string
	hook := func(openErr error) Options {
		return Options{ServeStore: &ServeStore{
			AddFlags: func(fs *pflag.FlagSet) { fs.StringVar(&servers, "etcd-servers", "", "etcd endpoints") },
			Open: func(context.Context) (cluster.Store, func() error, error) {
				opened = append(opened, servers)
				return nil, nil, openErr
			},
		}}
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"serve", "--help"}, nil, &stdout, &stderr, hook(nil))
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout.String(), "--etcd-servers")
	assert.Empty(t, opened, "--help opens no store")

	stdout.Reset()
	stderr.Reset()
	code = Main([]string{"serve", "--etcd-servers", "http://127.0.0.1:1"}, nil, &stdout, &stderr, hook(Usagef("--etcd-servers: no endpoint answers")))
	assert.Equal(t, exitUsage, code, stderr.String())
	assert.Equal(t, []string{"http://127.0.0.1:1"}, opened)
	assert.Equal(t, "error: --etcd-servers: no endpoint answers\nSee 'writepath serve --help' for usage.\n", stderr.String())

	stderr.Reset()
	code = Main([]string{"serve", "--etcd-servers", "x"}, nil, &stdout, &stderr, hook(errors.New("dial: refused")))
	assert.Equal(t, exitNegative, code)
	assert.Equal(t, "error: dial: refused\n", stderr.String())

	stderr.Reset()
	clash := Options{ServeStore: &ServeStore{AddFlags: func(fs *pflag.FlagSet) { fs.Int("port", 0, "") }}}
	code = Main([]string{"serve"}, nil, &stdout, &stderr, clash)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "--port is one of serve's own")
}
