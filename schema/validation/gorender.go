package validation

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/writepath/writepath/schema/gotypes"
)

// internalGo renders v, a value of the v1 Go type t, as apimachinery prints an internal Go value
// as a bad value: encoding/json over the internal types, which carry no JSON tags — Go field
// names in declaration order, every field present, null for nil pointers, slices and maps. The
// internal types are read off the v1 ones (same fields, same order, same Go names): a v1 field
// `metadata` of type ObjectMeta is the internal embedded ObjectMeta, whose tagged fields are
// promoted; the apimachinery types (ObjectMeta, LabelSelector, Time, Quantity, IntOrString)
// print with their own JSON. Go names are the JSON names capitalised, but for the initialisms
// and renamings in goNames.
func internalGo(t gotypes.Type, v any) json.RawMessage {
	var b []byte
	b = writeInternalGo(b, t, v)
	return b
}

// goNames are the v1 fields whose Go name is not their JSON name capitalised.
var goNames = map[string]string{
	"dnsPolicy": "DNSPolicy", "serviceAccount": "DeprecatedServiceAccount", "dnsConfig": "DNSConfig", "os": "OS",
	"tty": "TTY", "seLinuxOptions": "SELinuxOptions", "fsGroup": "FSGroup", "fsGroupChangePolicy": "FSGroupChangePolicy",
	"seLinuxChangePolicy": "SELinuxChangePolicy", "httpGet": "HTTPGet", "tcpSocket": "TCPSocket", "grpc": "GRPC",
	"gcePersistentDisk": "GCEPersistentDisk", "awsElasticBlockStore": "AWSElasticBlockStore", "nfs": "NFS",
	"iscsi": "ISCSI", "rbd": "RBD", "fc": "FC", "csi": "CSI", "pdName": "PDName", "volumeID": "VolumeID",
	"fsType": "FSType", "wwids": "WWIDs", "apiVersion": "APIVersion", "ip": "IP", "iqn": "IQN",
	"iscsiInterface": "ISCSIInterface", "chapAuthDiscovery": "DiscoveryCHAPAuth", "chapAuthSession": "SessionCHAPAuth",
	"cephfs": "CephFS", "storageos": "StorageOS", "scaleIO": "ScaleIO", "diskURI": "DataDiskURI",
	"storagePolicyID": "StoragePolicyID", "gmsaCredentialSpecName": "GMSACredentialSpecName",
	"gmsaCredentialSpec": "GMSACredentialSpec", "httpHeaders": "HTTPHeaders", "apiGroup": "APIGroup",
	"pdID": "PdID", "datasetUUID": "DatasetUUID", "endpoints": "EndpointsName", "monitors": "CephMonitors",
	"uid": "UID", "cel": "CEL", "sslEnabled": "SSLEnabled", "podIP": "PodIP", "hostIP": "HostIP",
}

// goFieldName is the Go name of the v1 field json in the struct st.
func goFieldName(st, name string) string {
	switch {
	case (st == "v1.RBDVolumeSource" || st == "v1.RBDPersistentVolumeSource") && name == "image":
		return "RBDImage"
	case (st == "v1.RBDVolumeSource" || st == "v1.RBDPersistentVolumeSource") && name == "pool":
		return "RBDPool"
	case (st == "v1.RBDVolumeSource" || st == "v1.RBDPersistentVolumeSource") && name == "user":
		return "RadosUser"
	case st != "v1.RBDVolumeSource" && st != "v1.RBDPersistentVolumeSource" && name == "monitors":
		return "Monitors"
	case st != "v1.GlusterfsVolumeSource" && st != "v1.GlusterfsPersistentVolumeSource" && name == "endpoints":
		return "Endpoints"
	}
	if g, ok := goNames[name]; ok {
		return g
	}
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

func writeInternalGo(b []byte, t gotypes.Type, v any) []byte {
	if !t.Valid() {
		j, err := json.Marshal(v)
		if err != nil {
			return append(b, "null"...)
		}
		return append(b, j...)
	}
	if t.Pointer() {
		if v == nil {
			return append(b, "null"...)
		}
		t = t.Deref()
	}
	switch t.CustomName() {
	case "":
	case goQuantity:
		q, ok := qtyOrZero(v)
		if !ok {
			return append(b, "null"...)
		}
		return strconv.AppendQuote(b, q.String())
	case goIntOrString:
		x := intOrStringOf(v)
		if x.isString {
			return strconv.AppendQuote(b, x.s)
		}
		return strconv.AppendInt(b, x.i, 10)
	case goTime, goMicroTime:
		if s, _ := v.(string); s != "" {
			return strconv.AppendQuote(b, s)
		}
		return append(b, "null"...)
	default:
		j, err := json.Marshal(v)
		if err != nil || v == nil {
			return append(b, "null"...)
		}
		return append(b, j...)
	}
	switch t.String() {
	case "v1.LabelSelector":
		j, _ := json.Marshal(selectorValue(mapOf(v), true))
		return append(b, j...)
	case "v1.ObjectMeta":
		j, _ := json.Marshal(newObjectMetaJSON(mapOf(v)))
		return append(b, j...)
	case "v1.GroupResource", "v1.Condition":
		// apimachinery's (metav1) types, printed with their JSON tags.
		return append(b, metaStructJSON(t.String(), mapOf(v))...)
	}
	switch t.Kind() {
	case "struct":
		m := mapOf(v)
		b = append(b, '{')
		first := true
		for _, name := range t.FieldNames() {
			ft := t.Field(name)
			if name == "kind" || name == "apiVersion" {
				if ft.Kind() == "string" && t.Field("metadata").Valid() {
					continue // the embedded TypeMeta, empty in an embedded object
				}
			}
			if name == "metadata" && ft.String() == "v1.ObjectMeta" {
				// The internal struct embeds ObjectMeta: its fields are promoted.
				j, _ := json.Marshal(newObjectMetaJSON(mapOf(m[name])))
				if inner := j[1 : len(j)-1]; len(inner) > 0 {
					if !first {
						b = append(b, ',')
					}
					b = append(b, inner...)
					first = false
				}
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendQuote(b, goFieldName(t.String(), name))
			b = append(b, ':')
			b = writeInternalGo(b, ft, m[name])
		}
		return append(b, '}')
	case "slice":
		if s, ok := v.(string); ok {
			if _, err := base64.StdEncoding.DecodeString(s); err == nil {
				return strconv.AppendQuote(b, s)
			}
		}
		l, ok := v.([]any)
		if !ok {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, x := range l {
			if i > 0 {
				b = append(b, ',')
			}
			b = writeInternalGo(b, t.Elem(), x)
		}
		return append(b, ']')
	case "map":
		m, ok := v.(map[string]any)
		if !ok {
			return append(b, "null"...)
		}
		b = append(b, '{')
		for i, k := range sortedKeys(m) {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			b = writeInternalGo(b, t.Elem(), m[k])
		}
		return append(b, '}')
	case "string":
		s, _ := v.(string)
		j, _ := json.Marshal(s)
		return append(b, j...)
	case "bool":
		x, _ := v.(bool)
		return strconv.AppendBool(b, x)
	case "float32", "float64":
		j, _ := json.Marshal(numberOrZero(v))
		return append(b, j...)
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		switch x := v.(type) {
		case int64:
			return strconv.AppendInt(b, x, 10)
		case float64:
			return strconv.AppendInt(b, int64(x), 10)
		}
		return append(b, '0')
	}
	j, err := json.Marshal(v)
	if err != nil || v == nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}
