package field

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToAggregate(t *testing.T) {
	p := NewPath("spec")
	a := Required(p.Child("a"), "")
	b := Invalid(p.Child("b"), int64(1), "bad")
	aAgain := Required(p.Child("a"), "") // a different value with the same message
	cases := []struct {
		name string
		list ErrorList
		want string // "" for a nil aggregate
	}{
		{"nil list", nil, ""},
		{"empty list", ErrorList{}, ""},
		{"only nil entries", ErrorList{nil, nil}, ""},
		{"one", ErrorList{a}, "spec.a: Required value"},
		{"one repeated", ErrorList{a, aAgain, a}, "spec.a: Required value"},
		{"two", ErrorList{a, b}, "[spec.a: Required value, spec.b: Invalid value: 1: bad]"},
		{"order kept, duplicates dropped", ErrorList{b, a, nil, aAgain, b}, "[spec.b: Invalid value: 1: bad, spec.a: Required value]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.list)
			err := tc.list.ToAggregate()
			if tc.want == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.want, err.Error())
			}
			assert.Equal(t, before, tc.list, "list not modified")
		})
	}
}

func TestAggregateUnwrap(t *testing.T) {
	cause := errors.New("cause")
	list := ErrorList{Required(NewPath("a"), ""), InternalError(NewPath("b"), cause)}
	err := list.ToAggregate()
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Same(t, list[0], fe, "errors.As finds the first error")
	assert.ErrorIs(t, err, cause, "errors.Is reaches the cause of any error")
	assert.ErrorIs(t, err, list[1])

	errs := err.(interface{ Errors() []error }).Errors()
	assert.Len(t, errs, 2)
	errs[0] = nil
	assert.Len(t, err.(interface{ Errors() []error }).Errors(), 2, "Errors returns a copy")
	assert.NotNil(t, err.(interface{ Errors() []error }).Errors()[0])
}

func TestFilter(t *testing.T) {
	p := NewPath("spec")
	req := Required(p.Child("a"), "")
	inv := Invalid(p.Child("b"), "x", "bad")
	forb := Forbidden(p.Child("c"), "no")
	list := ErrorList{req, inv, req, forb, nil}
	before := slices.Clone(list)

	assert.Equal(t, ErrorList{inv, forb}, list.Filter(OfType(ErrorTypeRequired)))
	assert.Equal(t, ErrorList{forb}, list.Filter(OfType(ErrorTypeRequired), OfType(ErrorTypeInvalid)))
	assert.Equal(t, ErrorList{req, inv, forb}, list.Filter(), "no matcher: duplicates and nils dropped, as apimachinery")
	assert.Nil(t, list.Filter(func(*Error) bool { return true }))
	assert.Nil(t, ErrorList(nil).Filter())
	assert.Equal(t, before, list, "list not modified")
}
