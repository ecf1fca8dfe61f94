package cluster

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/codec/protobuf"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// Content negotiation for the Kubernetes protobuf encoding (application/vnd.kubernetes.protobuf),
// which client-go's typed clients and controller-runtime send and ask for on built-in resources.
// It wraps the JSON handler: a protobuf request body of a built-in resource is transcoded to JSON
// before the handler sees it, and when Accept prefers protobuf for a built-in resource the
// handler answers JSON which is transcoded back (every object, list and Status), watch events
// into length-prefixed frames (;stream=watch). Custom resources have no protobuf: their bodies
// reach the handler as sent (415, as the apiserver answers) and Accept falls through to the next
// media type or 406.

const (
	protobufType       = "application/vnd.kubernetes.protobuf"
	protobufWatchType  = protobufType + ";stream=watch"
	jsonType           = "application/json"
	maxAcceptClauses   = 64
	maxWatchEventBytes = 16 << 20
)

// withProtobuf serves r through next, transcoding protobuf as described above.
func withProtobuf(rw http.ResponseWriter, r *http.Request, next http.HandlerFunc) {
	builtin := builtinTarget(r.URL.Path)
	if builtin && isProtobuf(r.Header.Get("Content-Type")) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			next(rw, r)
			return
		}
		if len(body) > 0 && len(body) < maxBody {
			obj, derr := protobuf.Decode(body)
			if derr == nil {
				if j, err := codec.EncodeJSON(obj); err == nil {
					body = j
				}
			}
			// A body that does not decode goes on as it is: the handler's decoding error
			// (400) stands for the protobuf serializer's.
		}
		r = r.Clone(r.Context())
		r.Header.Set("Content-Type", jsonType)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	if !builtin || !prefersProtobuf(r.Header.Get("Accept")) {
		next(rw, r)
		return
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept", jsonType)
	if r.Method == http.MethodGet && isWatch(r.URL.Query()) {
		w := &protobufWatchWriter{rw: rw}
		next(w, r)
		w.finish()
		return
	}
	w := &bufferedResponse{header: http.Header{}}
	next(w, r)
	w.transcode(rw)
}

// builtinTarget reports whether path is a request for a built-in resource.
func builtinTarget(path string) bool {
	if !strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/apis/") {
		return false
	}
	t, _, err := registry.ParsePath(path)
	if err != nil || t.Resource.Resource == "" {
		return false
	}
	_, err = schema.BuiltinForResource(t.Resource)
	return err == nil
}

func isProtobuf(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == protobufType
}

// prefersProtobuf reports whether the output accept negotiates (negotiate.go; withOutput has
// already reduced a resource request's Accept to the one media type chosen) is protobuf
// without a transformation.
func prefersProtobuf(accept string) bool {
	o, ok := negotiateOutput(accept, false)
	return ok && o.mediaType == protobufType && o.as == ""
}

// bufferedResponse keeps a handler's whole response, and the object registry answered with
// when the handler hands it over (objectReceiver).
type bufferedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
	object map[string]any
}

func (b *bufferedResponse) receiveObject(obj map[string]any) { b.object = obj }

func (b *bufferedResponse) Header() http.Header { return b.header }
func (b *bufferedResponse) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}
func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	return b.body.Write(p)
}

// transcode writes the response to rw, its JSON body as protobuf when it is an object with a
// protobuf encoding (anything else, such as a discovery or Table document, goes as JSON).
func (b *bufferedResponse) transcode(rw http.ResponseWriter) {
	body := b.body.Bytes()
	if mt, _, _ := mime.ParseMediaType(b.header.Get("Content-Type")); mt == jsonType {
		// Registry's object rather than its JSON body: it keeps the present-but-empty []byte
		// fields the JSON leaves out, which gogo's Marshal writes (registry's emptybytes.go).
		obj, err := b.object, error(nil)
		if obj == nil {
			obj, err = codec.DecodeObject(body)
		}
		if err == nil {
			if pb, err := protobuf.Encode(obj); err == nil {
				body = pb
				b.header.Set("Content-Type", protobufType)
			}
		}
	}
	for k, v := range b.header {
		rw.Header()[k] = v
	}
	rw.Header().Del("Content-Length")
	code := b.code
	if code == 0 {
		code = http.StatusOK
	}
	rw.WriteHeader(code)
	_, _ = rw.Write(body)
}

// protobufWatchWriter turns the JSON watch stream (one {"type","object"} document per line) into
// protobuf watch frames as the lines complete. A response that is not a 200 watch stream (an
// error Status) is transcoded whole.
type protobufWatchWriter struct {
	rw      http.ResponseWriter
	code    int
	started bool // the 200 stream header went out
	buf     []byte
	failed  bool
	errResp *bufferedResponse
}

func (w *protobufWatchWriter) Header() http.Header {
	if w.errResp != nil {
		return w.errResp.header
	}
	return w.rw.Header()
}

func (w *protobufWatchWriter) WriteHeader(code int) {
	if w.code != 0 {
		return
	}
	w.code = code
	if code != http.StatusOK {
		w.errResp = &bufferedResponse{header: w.rw.Header().Clone(), code: code}
		return
	}
	w.rw.Header().Set("Content-Type", protobufWatchType)
	w.rw.Header().Del("Content-Length")
	w.rw.WriteHeader(code)
	w.started = true
}

func (w *protobufWatchWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.errResp != nil {
		return w.errResp.Write(p)
	}
	if w.failed {
		return 0, io.ErrClosedPipe
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := w.buf[:i]
		if err := w.frame(line); err != nil {
			w.failed = true
			return 0, err
		}
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
	}
	if len(w.buf) > maxWatchEventBytes {
		w.failed = true
		return 0, bufio.ErrTooLong
	}
	return len(p), nil
}

// watchLine decodes one line of the JSON watch stream into its event type and object; blank is
// true for an empty line (which carries no event).
func watchLine(line []byte) (typ string, obj map[string]any, blank bool, err error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return "", nil, true, nil
	}
	ev, err := codec.DecodeObject(line)
	if err != nil {
		return "", nil, false, err
	}
	typ, _ = ev["type"].(string)
	obj, _ = ev["object"].(map[string]any)
	return typ, obj, false, nil
}

func (w *protobufWatchWriter) frame(line []byte) error {
	typ, obj, blank, err := watchLine(line)
	if blank || err != nil {
		return err
	}
	frame, err := protobuf.EncodeWatchEvent(typ, obj)
	if err != nil {
		return err
	}
	_, err = w.rw.Write(frame)
	return err
}

func (w *protobufWatchWriter) Flush() {
	if f, ok := w.rw.(http.Flusher); ok && w.started {
		f.Flush()
	}
}

func (w *protobufWatchWriter) finish() {
	if w.errResp != nil {
		w.errResp.transcode(w.rw)
	}
}
