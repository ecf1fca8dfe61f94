package v1beta1

import (
	"github.com/writepath/writepath/conversion/internal/wire/runtime"
	"github.com/writepath/writepath/conversion/internal/wire/types"
	metav1 "github.com/writepath/writepath/conversion/internal/wire/v1"
)

type ConversionReview struct {
	metav1.TypeMeta `json:""`
	Request         *ConversionRequest  `json:"request,omitempty"`
	Response        *ConversionResponse `json:"response,omitempty"`
}

type ConversionRequest struct {
	UID               types.UID              `json:"uid"`
	DesiredAPIVersion string                 `json:"desiredAPIVersion"`
	Objects           []runtime.RawExtension `json:"objects"`
}

type ConversionResponse struct {
	UID              types.UID              `json:"uid"`
	ConvertedObjects []runtime.RawExtension `json:"convertedObjects"`
	Result           metav1.Status          `json:"result"`
}
