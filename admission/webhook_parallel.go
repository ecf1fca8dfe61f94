package admission

import (
	"context"
	"fmt"
	"sync"

	"github.com/writepath/writepath/status"
)

// runValidatingWebhooks is the validating webhook dispatcher
// (k8s.io/apiserver validating/dispatcher.go): the webhooks that match are
// chosen in configuration order (a match error answers at once, as
// ShouldCallHook's does), then all are called at the same time, each in its
// own goroutine, and the first error to arrive is the answer once every call
// has returned. Warnings and audit annotations are added as each answer
// arrives; the failed-open annotation is indexed by the webhook's place among
// the matching ones.
func (c *Chain) runValidatingWebhooks(ctx context.Context, req *Request, obj map[string]any, res *Result) error {
	r := *req
	r.Object = obj
	var relevant []*webhook
	for _, w := range c.validating {
		ok, err := c.shouldCall(ctx, w, &r)
		if err != nil {
			return err
		}
		if ok {
			relevant = append(relevant, w)
		}
	}
	if len(relevant) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return status.Timeout("request did not complete within requested timeout", 0)
	}
	// Review uids are drawn here, in order, so Env.ReviewUID is never called
	// concurrently and a deterministic one gives each webhook the same uid on
	// every run. A webhook refused before its call draws none, as in call.
	uids := make([]string, len(relevant))
	for i, w := range relevant {
		if w.dryRunCheck(req) == nil {
			uids[i] = c.reviewUID()
		}
	}
	var (
		mu   sync.Mutex
		errs []error // in order of arrival
		wg   sync.WaitGroup
	)
	arrive := func(idx int, w *webhook, local *Result, err error) {
		mu.Lock()
		defer mu.Unlock()
		res.Warnings = append(res.Warnings, local.Warnings...)
		for _, k := range sortedStrings(local.AuditAnnotations) {
			res.addAudit(k, local.AuditAnnotations[k])
		}
		if err != nil {
			if e := c.handleError(w, err, idx, 0, res); e != nil {
				errs = append(errs, e)
			}
		}
	}
	wg.Add(len(relevant))
	for idx, w := range relevant {
		go func() {
			defer wg.Done()
			local := &Result{}
			var err error
			defer func() {
				if p := recover(); p != nil {
					// The dispatcher recovers a panicking call: fail open
					// under Ignore, else a 500 naming the plugin.
					err = &callError{name: w.name, reason: fmt.Errorf("panic: %v", p),
						status: status.InternalError(fmt.Errorf("panic: %v", p))}
					if w.failPolicy != "Ignore" {
						err = status.InternalError(fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", w.name, p))
					}
				}
				arrive(idx, w, local, err)
			}()
			if err = w.dryRunCheck(req); err == nil {
				_, err = c.send(ctx, w, req, obj, uids[idx], local)
			}
		}()
	}
	wg.Wait()
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}
