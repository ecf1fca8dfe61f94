// Package genio is what every generator of this module shares: the catalogue's kinds as a
// generator reads them (schema/data/kinds.json), the reference scheme the Go types come from, and
// the writing (or, with -verify, the checking) of a generated file, gzip-compressed when its name
// ends in .gz. A .gz file is compared on its content, so a different compress/flate in another Go
// release does not make it stale.
package genio

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
)

// Kind is the part of a kinds.json entry the generators read.
type Kind struct {
	Group   string   `json:"group"`
	Version string   `json:"version"`
	Kind    string   `json:"kind"`
	GoType  string   `json:"goType"`
	Verbs   []string `json:"verbs"`
}

// ReadKinds reads the catalogue's kinds from a kinds.json file.
func ReadKinds(path string) ([]Kind, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Kinds []Kind `json:"kinds"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc.Kinds, nil
}

// Scheme is the reference scheme the Go types come from: client-go's, apiextensions-apiserver's
// and kube-aggregator's kinds.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme,
		apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ErrStale is returned (wrapped, naming the file) by Write in verify mode when a file differs
// from the generator's output.
var ErrStale = fmt.Errorf("differs from the generator's output")

// Write writes data to path (gzip-compressed for a .gz name) or, when verify is set, writes
// nothing and returns an error wrapping ErrStale when the file's content differs from data.
func Write(path string, data []byte, verify bool) error {
	if verify {
		have, err := Read(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !bytes.Equal(have, data) {
			return fmt.Errorf("%s: %w", path, ErrStale)
		}
		return nil
	}
	if filepath.Ext(path) == ".gz" {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return err
		}
		if _, err := zw.Write(data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		data = buf.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Read reads a generated file, decompressing a .gz one.
func Read(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil || filepath.Ext(path) != ".gz" {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
