package bench

import (
	"bytes"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/writepath/writepath/internal/codec"
	wpprotobuf "github.com/writepath/writepath/internal/codec/protobuf"
)

// Protobuf benchmarks: writepath's codec (object model <-> protobuf) against apimachinery's
// protobuf serializer (typed struct <-> protobuf) on the codec benchmarks' Deployment and ~1 MB
// DeploymentList. impl=apiserver+json adds the JSON encoding of the decoded struct, which is
// what writepath's decoded map stands for. Compare with `benchstat -col /impl`.

type protobufInput struct {
	name  string
	model map[string]any
	typed runtime.Object
	bytes []byte
}

func protobufInputs(b *testing.B) []protobufInput {
	deployJSON, _, listJSON := codecInputs(b)
	ser := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)
	var out []protobufInput
	for _, in := range []struct {
		name  string
		data  []byte
		typed runtime.Object
	}{{"deployment", deployJSON, &appsv1.Deployment{}}, {"list", listJSON, &appsv1.DeploymentList{}}} {
		model, err := codec.DecodeObject(in.data)
		require.NoError(b, err)
		require.NoError(b, json.Unmarshal(in.data, in.typed))
		var buf bytes.Buffer
		require.NoError(b, ser.Encode(in.typed, &buf))
		mine, err := wpprotobuf.Encode(model)
		require.NoError(b, err)
		require.Equal(b, buf.Bytes(), mine, "%s: the same bytes", in.name)
		out = append(out, protobufInput{in.name, model, in.typed, buf.Bytes()})
	}
	return out
}

// protoCPU reports the process's CPU time per operation (user+system, getrusage) next to the
// wall time, which on a loaded machine mostly measures waiting for a CPU.
func protoCPU(b *testing.B, loop func()) {
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	loop()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func BenchmarkProtobufEncode(b *testing.B) {
	ser := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)
	for _, in := range protobufInputs(b) {
		b.Run(in.name+"/impl=writepath", func(b *testing.B) {
			b.SetBytes(int64(len(in.bytes)))
			b.ReportAllocs()
			protoCPU(b, func() {
				for b.Loop() {
					if _, err := wpprotobuf.Encode(in.model); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run(in.name+"/impl=apiserver", func(b *testing.B) {
			b.SetBytes(int64(len(in.bytes)))
			b.ReportAllocs()
			var buf bytes.Buffer
			protoCPU(b, func() {
				for b.Loop() {
					buf.Reset()
					if err := ser.Encode(in.typed, &buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func BenchmarkProtobufDecode(b *testing.B) {
	ser := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)
	for _, in := range protobufInputs(b) {
		b.Run(in.name+"/impl=writepath", func(b *testing.B) {
			b.SetBytes(int64(len(in.bytes)))
			b.ReportAllocs()
			protoCPU(b, func() {
				for b.Loop() {
					if _, err := wpprotobuf.Decode(in.bytes); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run(in.name+"/impl=apiserver", func(b *testing.B) {
			b.SetBytes(int64(len(in.bytes)))
			b.ReportAllocs()
			protoCPU(b, func() {
				for b.Loop() {
					if _, _, err := ser.Decode(in.bytes, nil, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run(in.name+"/impl=apiserver+json", func(b *testing.B) {
			b.SetBytes(int64(len(in.bytes)))
			b.ReportAllocs()
			protoCPU(b, func() {
				for b.Loop() {
					obj, _, err := ser.Decode(in.bytes, nil, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := json.Marshal(obj); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
