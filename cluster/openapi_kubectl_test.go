package cluster_test

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl137 finds a kubectl 1.37 to run ($KUBECTL, realcluster's build, or PATH), or says
// why there is none: the recorded outputs are 1.37's.
func kubectl137() (string, string) {
	k := kubectlBinary()
	if k == "" {
		return "", "no kubectl: set KUBECTL or build ../shared/tools/realcluster"
	}
	out, err := exec.Command(k, "version", "--client", "-o", "json").Output()
	var v struct {
		ClientVersion struct{ Major, Minor string } `json:"clientVersion"`
	}
	if err == nil && json.Unmarshal(out, &v) == nil && v.ClientVersion.Major == "1" && v.ClientVersion.Minor == "37" {
		return k, ""
	}
	// realcluster builds kubectl from the k8s.io/kubernetes v1.37 module, without version stamps.
	if info, err := buildinfo.ReadFile(k); err == nil {
		if info.Main.Path == "k8s.io/kubernetes" && strings.HasPrefix(info.Main.Version, "v1.37.") {
			return k, ""
		}
		for _, d := range info.Deps {
			if d.Path == "k8s.io/kubectl" && strings.HasPrefix(d.Version, "v0.37.") {
				return k, ""
			}
		}
	}
	return "", k + " is not kubectl 1.37: " + string(out)
}

// kubectlBinary finds a kubectl to run: $KUBECTL, realcluster's build, or PATH; "" for none.
func kubectlBinary() string {
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	if home, err := os.UserHomeDir(); err == nil {
		if k := filepath.Join(home, ".cache/realcluster/bin/kubectl"); fileExists(k) {
			return k
		}
	}
	if k, err := exec.LookPath("kubectl"); err == nil {
		return k
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestKubectlAgainstServer runs the kubectl commands recorded against the real 1.37 apiserver
// (testdata/cluster/openapi/kubectl, record.sh) against the cluster and compares what kubectl
// prints: explain (OpenAPI v3, built-in kinds and CRDs), api-resources and api-versions
// (aggregated discovery), client-side apply (OpenAPI for the strategic merge patch and field
// validation), server-side apply and a strict-validation refusal. It needs a kubectl binary
// and skips without one (CI); the documents it reads are compared without kubectl by the
// other openapi tests.
func TestKubectlAgainstServer(t *testing.T) {
	kubectl, why := kubectl137()
	if kubectl == "" {
		t.Skip(why)
	}
	c := startWithCRDs(t)
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`)
	require.Contains(t, []int{201, 409}, code)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, c.srv.Kubeconfig(), 0o600))
	dir := "../testdata/cluster/openapi/kubectl"
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		first, want, _ := strings.Cut(string(b), "\n")
		args := strings.Fields(strings.TrimPrefix(first, "# kubectl "))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
		cancel()
		exit := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			exit = ee.ExitCode()
		} else {
			require.NoError(t, err, f)
		}
		assert.Equal(t, want, out.String()+"exit "+strconv.Itoa(exit)+"\n", "%s: kubectl %s", filepath.Base(f), strings.Join(args, " "))
	}
}
