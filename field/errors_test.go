package field

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenDir holds this package's golden files; UPDATE_GOLDEN=1 rewrites them.
const goldenDir = "../testdata/field"

type namedString string

func (n namedString) String() string { return "named:" + string(n) }

type unmarshalable struct{ C chan int }

func (unmarshalable) String() string { return "unmarshalable" }

type noString struct {
	F func()
	N int
}

// errorCases covers every constructor and every kind of bad value ErrorBody
// distinguishes. The expected strings live in testdata/field/errors.golden; they
// are checked against apimachinery by conformance/fielderrors.
func errorCases() []struct {
	name string
	err  *Error
} {
	p := NewPath("spec", "containers").Index(0).Child("image")
	return []struct {
		name string
		err  *Error
	}{
		{"invalid int64", Invalid(p, int64(-1), "must be greater than or equal to 0")},
		{"invalid int32", Invalid(p, int32(7), "")},
		{"invalid int", Invalid(p, 7, "int goes through JSON")},
		{"invalid uint64", Invalid(p, uint64(math.MaxUint64), "")},
		{"invalid float64", Invalid(p, 0.5, "")},
		{"invalid float64 big", Invalid(p, 1e21, "")},
		{"invalid float64 NaN", Invalid(p, math.NaN(), "")},
		{"invalid float64 -Inf", Invalid(p, math.Inf(-1), "")},
		{"invalid float32", Invalid(p, float32(0.1), "")},
		{"invalid bool", Invalid(p, true, "")},
		{"invalid string", Invalid(p, "nginx:<latest>", "bad tag")},
		{"invalid unicode string", Invalid(p, "日本\u2028\x00", "")},
		{"invalid invalid utf8", Invalid(p, "\xff", "")},
		{"invalid nil", Invalid(p, nil, "null")},
		{"invalid map", Invalid(p, map[string]any{"b": int64(1), "a": []any{"<x>", 1.5, nil, true}}, "")},
		{"invalid slice", Invalid(p, []string{"a", "b"}, "")},
		{"invalid empty map", Invalid(p, map[string]any{}, "")},
		{"invalid bytes", Invalid(p, []byte("hi"), "")},
		{"invalid stringer", Invalid(p, unmarshalable{}, "")},
		{"invalid named string", Invalid(p, namedString("x"), "")},
		{"invalid no string", Invalid(p, noString{N: 3}, "")},
		{"invalid error value", Invalid(p, errors.New("boom"), "")},
		{"invalid at zero path", Invalid(Path{}, "x", "")},
		{"type invalid", TypeInvalid(p, "three", "must be of type integer")},
		{"not found", NotFound(p, "data")},
		{"required", Required(p, "")},
		{"required detail", Required(p, "name or generateName is required")},
		{"duplicate", Duplicate(p, map[string]any{"port": int64(80)})},
		{"not supported", NotSupported(p, "Sometimes", []string{"Always", "Never"})},
		{"not supported none", NotSupported[string](p, "x", nil)},
		{"not supported stringer", NotSupported(p, "x", []namedString{"a", "b\"c"})},
		{"forbidden", Forbidden(p, "may not be set")},
		{"too long", TooLong(p, "xxxx", 3)},
		{"too long 1", TooLong(p, "xxxx", 1)},
		{"too long negative", TooLong(p, "xxxx", -1)},
		{"too long characters", TooLongCharacters(p, "ééé", 2)},
		{"too long characters 1", TooLongCharacters(p, "ééé", 1)},
		{"too long characters negative", TooLongCharacters(p, "ééé", -1)},
		{"too short", TooShort(p, "ab", 3)},
		{"too short 1", TooShort(p, "", 1)},
		{"too short negative", TooShort(p, "", -1)},
		{"too many", TooMany(p, 12, 10)},
		{"too many 1", TooMany(p, 2, 1)},
		{"too many omitted", TooMany(p, -1, 10)},
		{"too many negative max", TooMany(p, 3, -1)},
		{"too few", TooFew(p, 0, 2)},
		{"too few 1", TooFew(p, 0, 1)},
		{"too few negative min", TooFew(p, -4, -1)},
		{"internal", InternalError(p, fmt.Errorf("decoding: %w", errors.New("eof")))},
		{"internal nil", InternalError(p, nil)},
		{"literal omitted invalid", &Error{Type: ErrorTypeInvalid, Field: "f", BadValue: OmitValueType{}, Detail: "d"}},
		{"literal unknown type", &Error{Type: "Weird", Field: "f", BadValue: 1, Detail: "d"}},
		{"literal empty type", &Error{Field: "f"}},
	}
}

func TestErrorGolden(t *testing.T) {
	var b strings.Builder
	for _, tc := range errorCases() {
		fmt.Fprintf(&b, "%s\n\t%s\n\t%s\n", tc.name, tc.err.Error(), tc.err.ErrorBody())
	}
	golden := filepath.Join(goldenDir, "errors.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with UPDATE_GOLDEN=1 to create %s", golden)
	assert.Equal(t, string(want), b.String())
}

func TestErrorFormat(t *testing.T) {
	p := NewPath("spec", "replicas")
	cases := []struct {
		err  *Error
		want string
	}{
		{Invalid(p, int64(-1), "must be greater than or equal to 0"), `spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
		{Invalid(p, "x", ""), `spec.replicas: Invalid value: "x"`},
		{Required(p, ""), `spec.replicas: Required value`},
		{Forbidden(p, "no"), `spec.replicas: Forbidden: no`},
		{TooLong(p, "abc", 2), `spec.replicas: Too long: may not be more than 2 bytes`},
		{TooMany(p, -1, 1), `spec.replicas: Too many: must have at most 1 item`},
		{NotSupported(p, "c", []string{"a", "b"}), `spec.replicas: Unsupported value: "c": supported values: "a", "b"`},
		{Invalid(p, map[string]string{"k": "<&>"}, ""), `spec.replicas: Invalid value: {"k":"\u003c\u0026\u003e"}`},
		{&Error{Type: "X", Field: "f"}, `f: Internal error: unhandled error code: <unknown error "X">: please report this`},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.err.Error(), "%#v", tc.err)
	}
}

func TestErrorFields(t *testing.T) {
	p := NewPath("a")
	assert.Equal(t, &Error{Type: ErrorTypeRequired, Field: "a", BadValue: "", Detail: "d"}, Required(p, "d"))
	assert.Equal(t, &Error{Type: ErrorTypeForbidden, Field: "a", BadValue: "", Detail: "d"}, Forbidden(p, "d"))
	assert.Equal(t, "<value omitted>", TooLong(p, "secret", 1).BadValue, "the value is not kept")
	assert.Equal(t, "<value omitted>", TooLongCharacters(p, "secret", 1).BadValue)
	assert.Equal(t, OmitValueType{}, TooMany(p, -1, 1).BadValue)
	assert.Equal(t, 3, TooMany(p, 3, 1).BadValue)
	assert.Equal(t, "<nil>", NotFound(Path{}, 1).Field)
}

func TestErrorUnwrap(t *testing.T) {
	cause := errors.New("root cause")
	ie := InternalError(NewPath("spec"), fmt.Errorf("wrapped: %w", cause))
	assert.ErrorIs(t, ie, cause)
	assert.Nil(t, Invalid(NewPath("a"), 1, "").Unwrap())
	assert.Nil(t, InternalError(NewPath("a"), nil).Unwrap())

	var fe *Error
	wrapped := fmt.Errorf("validating: %w", Required(NewPath("x"), ""))
	require.ErrorAs(t, wrapped, &fe)
	assert.Equal(t, ErrorTypeRequired, fe.Type)
}

func TestErrorTypeString(t *testing.T) {
	cases := map[ErrorType]string{
		ErrorTypeNotFound: "Not found", ErrorTypeRequired: "Required value", ErrorTypeDuplicate: "Duplicate value",
		ErrorTypeInvalid: "Invalid value", ErrorTypeNotSupported: "Unsupported value", ErrorTypeForbidden: "Forbidden",
		ErrorTypeTooLong: "Too long", ErrorTypeTooMany: "Too many", ErrorTypeTooFew: "Too few",
		ErrorTypeInternal: "Internal error", ErrorTypeTypeInvalid: "Invalid value", ErrorTypeTooShort: "Too short",
		"": `<unknown error "">`, "Other": `<unknown error "Other">`,
	}
	for typ, want := range cases {
		assert.Equal(t, want, typ.String(), "type %q", string(typ))
	}
}
