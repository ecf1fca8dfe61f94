package cluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The list semantics of kube-apiserver 1.37 as its watch cache serves them (storage/cacher,
// ListFromCacheSnapshot) with etcd's errors where the cache hands a request to etcd:
// resourceVersion "" and "0" read the current state ("0" ignoring the limit: the whole list in one
// page); N (NotOlderThan or no match) reads the
// current state when N is not newer than it; Exact N reads the state at revision N. Pages are the
// selected objects in key order, Limit at a time; the continue token is the apiserver's
// (base64url of {"v":"meta.k8s.io/v1","rv":REV,"start":"KEY\u0000"}, KEY relative to the
// listed prefix), so a page continues at the revision of the first.

const (
	listExpired     = "The resourceVersion for the provided list is too old."
	continueExpired = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent " +
		"list - objects that were created, modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
)

type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

func encodeContinue(startKey string, rev int64) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rev, StartKey: startKey})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue is storage.DecodeContinue: the start key (relative to the listed prefix) and
// the revision of a token, or the apiserver's 400.
func decodeContinue(token string) (string, int64, error) {
	bad := func(detail string) error {
		return status.BadRequest("invalid continue token: continue key is not valid" + detail)
	}
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, bad(": " + err.Error())
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", 0, bad(": " + err.Error())
	}
	if c.APIVersion != "meta.k8s.io/v1" {
		return "", 0, bad(": server does not recognize this encoded version " + c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", 0, bad(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if c.StartKey == "" {
		return "", 0, bad(": encoded start key empty (version meta.k8s.io/v1)")
	}
	key := c.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	if path.Clean(key) != key {
		return "", 0, bad(": " + c.StartKey)
	}
	return key[1:], c.ResourceVersion, nil
}

// relativeKey is the key of o relative to the listed prefix, as the continue token holds it.
func relativeKey(o Object, namespace string) string {
	if namespace != "" || o.Key.Namespace == "" {
		return o.Key.Name
	}
	return o.Key.Namespace + "/" + o.Key.Name
}

// ListPage implements registry.Pager over the store.
func (w *world) ListPage(ctx context.Context, r schema.GroupVersionResource, namespace string, opts registry.ListOptions) (registry.ListPage, error) {
	s := w.c.store
	// at is the revision to read at; 0 reads the current state (a consistent read, which a
	// store with a watch cache serves from it, as kube-apiserver serves it from its cacher).
	at := int64(0)
	start := ""
	paging := opts.Continue != ""
	if paging {
		key, rev, err := decodeContinue(opts.Continue)
		if err != nil {
			return registry.ListPage{}, err
		}
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return registry.ListPage{}, status.BadRequest("specifying resource version is not allowed when using continue")
		}
		start = key
		if rev > 0 {
			at = rev
		}
	} else if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		n, perr := strconv.ParseUint(opts.ResourceVersion, 10, 64)
		if perr != nil {
			fe := field.Invalid(field.NewPath("resourceVersion"), opts.ResourceVersion, perr.Error())
			return registry.ListPage{}, status.BadRequest("invalid resource version: " + field.ErrorList{fe}.ToAggregate().Error())
		}
		current, err := s.Revision(ctx)
		if err != nil {
			return registry.ListPage{}, err
		}
		switch {
		case int64(n) > current && opts.ResourceVersionMatch == "Exact":
			return registry.ListPage{}, tooLargeResourceVersion(n, current, 0)
		case int64(n) > current:
			// The watch cache waits 3s for the revision before answering this; nothing here
			// will bring it sooner, so the answer comes at once.
			return registry.ListPage{}, tooLargeResourceVersion(n, current, 1)
		case opts.ResourceVersionMatch == "Exact":
			at = int64(n)
		}
	}
	if !paging && opts.ResourceVersion == "0" && opts.ResourceVersionMatch != "Exact" {
		// resourceVersion=0 is served from the watch cache, which ignores the limit and answers
		// the whole list in one response, no continue token (storage/cacher; KEP-4988 keeps
		// it for the clients that rely on it).
		opts.Limit = 0
	}
	prefix := storePrefix(r, namespace)
	req := ListRequest{Prefix: prefix, Revision: at}
	skipBelow := ""
	if start != "" {
		if after, ok := strings.CutSuffix(start, "\x00"); ok {
			k := storeKey(r, namespace, after)
			if namespace == "" {
				if ns, name, ok := strings.Cut(after, "/"); ok {
					k.Namespace, k.Name = ns, name
				}
			}
			req.After = &k
		} else {
			skipBelow = start // a token not made here: start at the key itself
		}
	}
	if opts.Keep == nil && skipBelow == "" {
		req.Limit = int(opts.Limit)
	}
	l, err := s.List(ctx, req)
	if err != nil {
		var tooOld *TooOldError
		if errors.As(err, &tooOld) {
			if paging {
				se := status.ResourceExpired(continueExpired)
				se.Continue = encodeContinue(start, -1)
				return registry.ListPage{}, se
			}
			return registry.ListPage{}, status.ResourceExpired(listExpired)
		}
		return registry.ListPage{}, err
	}
	page := registry.ListPage{ResourceVersion: strconv.FormatInt(l.Revision, 10), Items: []map[string]any{}}
	items := l.Items
	if skipBelow != "" {
		i := 0
		for i < len(items) && relativeKey(items[i], namespace) < skipBelow {
			i++
		}
		items = items[i:]
	}
	var last string
	more := false
	for i, o := range items {
		v, err := servedForm(r, o.Value)
		if err != nil {
			return registry.ListPage{}, err
		}
		if opts.Keep != nil {
			keep, err := opts.Keep(v)
			if err != nil {
				return registry.ListPage{}, err
			}
			if !keep {
				continue
			}
		}
		page.Items = append(page.Items, v)
		last = relativeKey(o, namespace)
		if opts.Limit > 0 && int64(len(page.Items)) >= opts.Limit {
			more = i < len(items)-1
			break
		}
	}
	if req.Limit > 0 {
		more = l.More
	}
	if more {
		page.Continue = encodeContinue(last+"\x00", l.Revision)
		if opts.Everything {
			remaining := int64(len(items)) - opts.Limit
			if req.Limit > 0 {
				remaining = l.Remaining
			}
			page.RemainingItemCount = &remaining
		}
	}
	return page, nil
}

// tooLargeResourceVersion is storage.NewTooLargeResourceVersionError: a 504 with the
// ResourceVersionTooLarge cause.
func tooLargeResourceVersion(n uint64, current int64, retry int) *status.Error {
	e := status.Timeout(fmt.Sprintf("Too large resource version: %d, current: %d", n, current), retry)
	e.Details.Causes = []status.Cause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}}
	return e
}
