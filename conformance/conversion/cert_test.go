package conversion

import (
	"encoding/pem"
	"net/http/httptest"
)

func pemCert(s *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}
