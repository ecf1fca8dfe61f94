package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The ReplicaSet controller's expectations live as long as their ReplicaSet: rolling many
// Deployments over and deleting them leaves no entry behind (a long-lived server does not grow).
func TestExpectationsPrunedWithTheirReplicaSet(t *testing.T) {
	c := queueTestCluster(t, PodsReady, false)
	const n = 12
	for i := 0; i < n; i++ {
		for _, image := range []string{"nginx:1", "nginx:2"} {
			body := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web%d","namespace":"a"},
			"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web%d"}},
			"template":{"metadata":{"labels":{"app":"web%d"}},"spec":{"containers":[{"name":"web","image":%q}]}}}}`, i, i, i, image)
			method, path := "POST", "/apis/apps/v1/namespaces/a/deployments"
			if image == "nginx:2" {
				method, path = "PUT", path+fmt.Sprintf("/web%d", i)
			}
			got := queueTestDo(t, c, method, path, "", body)
			require.True(t, strings.HasPrefix(got, "20"), "%s", got)
		}
	}
	rss := strings.Count(queueTestDo(t, c, "GET", "/apis/apps/v1/namespaces/a/replicasets", "", ""), `"ownerReferences"`)
	require.Equal(t, 2*n, rss)
	require.NotEmpty(t, c.expectations)
	require.LessOrEqual(t, len(c.expectations), rss, "an entry only for a stored ReplicaSet")

	for i := 0; i < n; i++ {
		got := queueTestDo(t, c, "DELETE", fmt.Sprintf("/apis/apps/v1/namespaces/a/deployments/web%d", i), "", "")
		require.True(t, strings.HasPrefix(got, "200"), "%s", got)
	}
	got := queueTestDo(t, c, "GET", "/apis/apps/v1/namespaces/a/replicasets", "", "")
	require.NotContains(t, got, `"ownerReferences"`)
	require.NoError(t, c.Settle(context.Background()))
	require.Empty(t, c.expectations, "the deleted ReplicaSets' expectations are forgotten")
}
