// Package bench holds benchmarks of writepath side by side with the k8s.io
// reference implementations; `make bench` compares them with benchstat.
package bench

import (
	"encoding/json"
	"testing"

	referrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	reffield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

// The same work on both sides: build a path of five segments and render it,
// build and print a list of field errors, and encode the 422 Invalid status.

func BenchmarkFieldPath(b *testing.B) {
	b.Run("writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = field.NewPath("spec", "template").Child("spec", "containers").Index(3).Key("image").String()
		}
	})
	b.Run("apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = reffield.NewPath("spec", "template").Child("spec", "containers").Index(3).Key("image").String()
		}
	})
}

func BenchmarkFieldErrorList(b *testing.B) {
	b.Run("writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := field.NewPath("spec")
			errs := field.ErrorList{
				field.Invalid(p.Child("replicas"), int64(-1), "must be greater than or equal to 0"),
				field.Invalid(p.Child("template", "metadata", "labels"), map[string]any{"app": "y"}, "`selector` does not match template `labels`"),
				field.Required(p.Child("template", "spec", "containers"), ""),
			}
			_ = errs.ToAggregate().Error()
		}
	})
	b.Run("apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := reffield.NewPath("spec")
			errs := reffield.ErrorList{
				reffield.Invalid(p.Child("replicas"), int64(-1), "must be greater than or equal to 0"),
				reffield.Invalid(p.Child("template", "metadata", "labels"), map[string]any{"app": "y"}, "`selector` does not match template `labels`"),
				reffield.Required(p.Child("template", "spec", "containers"), ""),
			}
			_ = errs.ToAggregate().Error()
		}
	})
}

func BenchmarkStatusInvalidJSON(b *testing.B) {
	b.Run("writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := field.NewPath("spec")
			e := status.Invalid(status.GroupKind{Group: "apps", Kind: "Deployment"}, "d", field.ErrorList{
				field.Invalid(p.Child("replicas"), int64(-1), "must be greater than or equal to 0"),
				field.Required(p.Child("template", "spec", "containers"), ""),
			})
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := reffield.NewPath("spec")
			e := referrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "d", reffield.ErrorList{
				reffield.Invalid(p.Child("replicas"), int64(-1), "must be greater than or equal to 0"),
				reffield.Required(p.Child("template", "spec", "containers"), ""),
			})
			st := e.ErrStatus
			st.Kind, st.APIVersion = "Status", "v1"
			if _, err := json.Marshal(&st); err != nil {
				b.Fatal(err)
			}
		}
	})
}
