package codec

import (
	"bytes"
	"compress/gzip"
	"io"
)

// Gunzip returns the decompressed content of gzip data: the generated tables the library embeds
// compressed (schema's catalogue, schema/gotypes' Go types, the protobuf table, cel's built-in
// OpenAPI, cluster's recorded OpenAPI documents) are read through it once, on first use.
func Gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
