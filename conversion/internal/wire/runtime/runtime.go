package runtime

import "bytes"

// RawExtension keeps an embedded object's bytes; a JSON null leaves it empty.
type RawExtension struct {
	Raw []byte
}

// UnmarshalJSON keeps the bytes of anything but null, as runtime.RawExtension does.
func (re *RawExtension) UnmarshalJSON(in []byte) error {
	if re == nil {
		return nil
	}
	if !bytes.Equal(in, []byte("null")) {
		re.Raw = append(re.Raw[0:0], in...)
	}
	return nil
}
