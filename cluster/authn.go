package cluster

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/status"
)

// defaultAPIAudience is kube-apiserver's --api-audiences when unset: its
// --service-account-issuer, which ../shared/tools/realcluster/up.sh sets (a TokenReview that
// names no audiences is answered for it).
const defaultAPIAudience = "https://kubernetes.default.svc"

// AuthenticateToken implements registry.Authenticator with the cluster's bearer tokens
// (Options.Tokens): the TokenReview's authenticator. With no Tokens every token is Admin, as
// every request is.
func (w *world) AuthenticateToken(_ context.Context, token string) (registry.User, bool, error) {
	if w.c.tokens == nil {
		return Admin, true, nil
	}
	u, ok := w.c.tokens[token]
	return u, ok, nil
}

// APIAudiences implements registry.Authenticator: Options.APIAudiences.
func (w *world) APIAudiences() []string { return w.c.apiAudiences }

const (
	impersonateUser        = "Impersonate-User"
	impersonateGroup       = "Impersonate-Group"
	impersonateUID         = "Impersonate-Uid"
	impersonateExtraPrefix = "Impersonate-Extra-"
)

// impersonate is kube-apiserver's impersonation filter (k8s.io/apiserver pkg/endpoints/filters
// impersonation.go): a request with Impersonate-User acts as that user, with the
// Impersonate-Group groups (a service account's two groups when it names none), the
// Impersonate-Uid and the Impersonate-Extra-KEY values, and system:authenticated added (or
// system:unauthenticated for system:anonymous) unless named. Whether the requesting user may
// impersonate is not checked: the cluster does not enforce RBAC (doc.go).
func impersonate(u registry.User, h http.Header) (registry.User, *status.Error) {
	name := h.Get(impersonateUser)
	groups := h.Values(impersonateGroup)
	uid := h.Get(impersonateUID)
	var extra map[string][]string
	for k, vs := range h {
		if key, ok := strings.CutPrefix(k, impersonateExtraPrefix); ok {
			key = strings.ToLower(key)
			if unescaped, err := url.PathUnescape(key); err == nil {
				key = unescaped
			}
			if extra == nil {
				extra = map[string][]string{}
			}
			extra[key] = append(extra[key], vs...)
		}
	}
	if name == "" {
		if len(groups) == 0 && uid == "" && extra == nil {
			return u, nil
		}
		return u, status.BadRequest(fmt.Sprintf("requested &user.DefaultInfo{Name:%q, UID:%q, Groups:%#v, Extra:%#v} without impersonating a user name",
			"", uid, groups, extra))
	}
	if len(groups) == 0 {
		if rest, ok := strings.CutPrefix(name, "system:serviceaccount:"); ok {
			if ns, _, ok := strings.Cut(rest, ":"); ok {
				groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}
			}
		}
	}
	if name != "system:anonymous" {
		if !containsAny(groups, "system:authenticated", "system:unauthenticated") {
			groups = append(groups, "system:authenticated")
		}
	} else if !containsAny(groups, "system:unauthenticated") {
		groups = append(groups, "system:unauthenticated")
	}
	return registry.User{Name: name, UID: uid, Groups: groups, Extra: extra}, nil
}

func containsAny(l []string, want ...string) bool {
	for _, x := range l {
		for _, w := range want {
			if x == w {
				return true
			}
		}
	}
	return false
}
