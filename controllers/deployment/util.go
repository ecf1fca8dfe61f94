package deployment

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/controllers/internal/object"
	"github.com/writepath/writepath/internal/value"
)

// The annotations and labels the controller owns.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	// RollbackToAnnotation is the deprecated rollback request (extensions/v1beta1
	// rollbackTo) the controller still honours.
	RollbackToAnnotation = "deprecated.deployment.rollback.to"
	// PodTemplateHashLabel is the label separating the ReplicaSets of one Deployment.
	PodTemplateHashLabel       = "pod-template-hash"
	lastAppliedAnnotation      = "kubectl.kubernetes.io/last-applied-configuration"
	maxRevHistoryLengthInChars = 2000
)

// Condition reasons, as deploymentutil names them.
const (
	ReasonReplicaSetUpdated          = "ReplicaSetUpdated"
	ReasonFailedRSCreate             = "ReplicaSetCreateError"
	ReasonNewReplicaSet              = "NewReplicaSetCreated"
	ReasonFoundNewRS                 = "FoundNewReplicaSet"
	ReasonNewRSAvailable             = "NewReplicaSetAvailable"
	ReasonTimedOut                   = "ProgressDeadlineExceeded"
	ReasonPaused                     = "DeploymentPaused"
	ReasonResumed                    = "DeploymentResumed"
	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	ReasonRollbackRevisionNotFound   = "DeploymentRollbackRevisionNotFound"
	ReasonRollbackTemplateUnchanged  = "DeploymentRollbackTemplateUnchanged"
	ReasonRollbackDone               = "DeploymentRollback"
)

var skipCopy = map[string]bool{lastAppliedAnnotation: true, RevisionAnnotation: true, RevisionHistoryAnnotation: true,
	DesiredReplicasAnnotation: true, MaxReplicasAnnotation: true, RollbackToAnnotation: true}

// ScaledValue is intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" of total
// rounded up or down.
func ScaledValue(v any, total int64, roundUp bool) (int64, error) {
	switch t := v.(type) {
	case nil:
		return 0, errors.New("nil value for IntOrString")
	case int64:
		return t, nil
	case float64:
		return int64(t), nil
	case string:
		s, ok := strings.CutSuffix(t, "%")
		if !ok {
			return 0, fmt.Errorf("invalid value for IntOrString: invalid type: string is not a percentage")
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", t, err)
		}
		if roundUp {
			return int64(math.Ceil(float64(n) * float64(total) / 100)), nil
		}
		return int64(math.Floor(float64(n) * float64(total) / 100)), nil
	}
	return 0, fmt.Errorf("invalid value for IntOrString: invalid type: neither int nor percentage")
}

// ResolveFenceposts is deploymentutil.ResolveFenceposts: maxSurge rounded up and
// maxUnavailable rounded down against desired (absent means 0), and 1 unavailable when
// both come to 0.
func ResolveFenceposts(maxSurge, maxUnavailable any, desired int64) (surge, unavailable int64, err error) {
	if maxSurge == nil {
		maxSurge = int64(0)
	}
	if maxUnavailable == nil {
		maxUnavailable = int64(0)
	}
	if surge, err = ScaledValue(maxSurge, desired, true); err != nil {
		return 0, 0, err
	}
	if unavailable, err = ScaledValue(maxUnavailable, desired, false); err != nil {
		return 0, 0, err
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return int64(int32(surge)), int64(int32(unavailable)), nil
}

func isRolling(d Object) bool {
	return object.String(d, "spec", "strategy", "type") == "RollingUpdate"
}

func rollingParams(d Object) (any, any) {
	ru := object.Map(d, "spec", "strategy", "rollingUpdate")
	return ru["maxSurge"], ru["maxUnavailable"]
}

func specReplicas(o Object) int64 {
	n, _ := object.Int(o, "spec", "replicas")
	return n
}

// MaxSurge is deploymentutil.MaxSurge (0 for Recreate or a bad value).
func MaxSurge(d Object) int64 {
	if !isRolling(d) {
		return 0
	}
	s, u := rollingParams(d)
	surge, _, _ := ResolveFenceposts(s, u, specReplicas(d))
	return surge
}

// MaxUnavailable is deploymentutil.MaxUnavailable (0 for Recreate or no replicas, at
// most spec.replicas).
func MaxUnavailable(d Object) int64 {
	if !isRolling(d) || specReplicas(d) == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, unavailable, _ := ResolveFenceposts(s, u, specReplicas(d))
	return min(unavailable, specReplicas(d))
}

func statusInt(o Object, k string) int64 {
	n, _ := object.Int(o, "status", k)
	return n
}

func annotation(o Object, k string) (string, bool) {
	v, ok := object.Map(o, "metadata", "annotations")[k].(string)
	return v, ok
}

func creation(o Object) time.Time { return object.Time(object.Map(o, "metadata")["creationTimestamp"]) }

// byCreation is controller.ReplicaSetsByCreationTimestamp: oldest first, then name.
func byCreation(a, b Object) bool {
	ta, tb := creation(a), creation(b)
	if ta.Equal(tb) {
		return object.Name(a) < object.Name(b)
	}
	return ta.Before(tb)
}

func sortByCreation(rss []Object) {
	sort.SliceStable(rss, func(i, j int) bool { return byCreation(rss[i], rss[j]) })
}

// revision is deploymentutil.Revision: 0 without the annotation.
func revision(rs Object) (int64, error) {
	v, ok := annotation(rs, RevisionAnnotation)
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

func maxRevision(rss []Object) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := revision(rs); err == nil && v > m {
			m = v
		}
	}
	return m
}

// LastRevision is deploymentutil.LastRevision: the second highest revision.
func LastRevision(rss []Object) int64 {
	var m, second int64
	for _, rs := range rss {
		v, err := revision(rs)
		if err != nil {
			continue
		}
		if v >= m {
			second, m = m, v
		} else if v > second {
			second = v
		}
	}
	return second
}

// templateWithoutHash is the pod template with the pod-template-hash label dropped.
func templateWithoutHash(t Object) Object {
	c := object.Copy(t)
	if c == nil {
		return Object{}
	}
	if md := object.Map(c, "metadata"); md != nil {
		if ls := object.Map(md, "labels"); ls != nil {
			delete(ls, PodTemplateHashLabel)
			if len(ls) == 0 {
				delete(md, "labels")
			}
		}
		if len(md) == 0 {
			delete(c, "metadata")
		}
	}
	return c
}

// EqualIgnoreHash is deploymentutil.EqualIgnoreHash over templates as the apiserver
// stores them: equal but for the pod-template-hash label (nil and empty maps and lists
// are equal, as under equality.Semantic).
func EqualIgnoreHash(a, b Object) bool {
	// Compare without copying: every key but metadata, metadata but labels, labels but
	// the hash.
	if !equalExcept(a, b, "metadata") {
		return false
	}
	ma, mb := object.Map(a, "metadata"), object.Map(b, "metadata")
	if !equalExcept(ma, mb, "labels") {
		return false
	}
	return equalExcept(object.Map(ma, "labels"), object.Map(mb, "labels"), PodTemplateHashLabel)
}

// equalExcept is value.Equal on two maps without key skip (an absent map is empty).
func equalExcept(a, b map[string]any, skip string) bool {
	n := 0
	for k, va := range a {
		if k == skip {
			continue
		}
		vb, ok := b[k]
		if !ok {
			if !value.Equal(va, nil) {
				return false
			}
			continue
		}
		n++
		if !value.Equal(va, vb) {
			return false
		}
	}
	for k, vb := range b {
		if k == skip {
			continue
		}
		if _, ok := a[k]; !ok && !value.Equal(vb, nil) {
			return false
		}
	}
	_ = n
	return true
}

// ComputeHash is controller.ComputeHash, the pod-template-hash of a template (as the
// apiserver stores it) and collision count: fnv-32a over TemplateDump (go-spew's dump of the
// typed PodTemplateSpec kube-controller-manager holds) followed, when collisionCount is set, by
// its 8-byte little-endian encoding (as a uint32), printed in decimal and encoded with
// rand.SafeEncodeString's alphabet. The template is hashed as it is, a pod-template-hash label
// included, as the controller hashes the Deployment's template.
func ComputeHash(template Object, collisionCount *int64) string {
	root, err := podTemplateShape()
	if err != nil {
		// The embedded table is generated and checked by the package's tests.
		panic("deployment: the embedded PodTemplateSpec shapes do not load: " + err.Error())
	}
	var h fnv32a = 2166136261
	st := spewState{out: &h}
	st.format(root, map[string]any(template))
	if collisionCount != nil {
		var buf [8]byte
		c := uint32(*collisionCount)
		buf[0], buf[1], buf[2], buf[3] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
		h.WriteString(string(buf[:]))
	}
	return safeEncode(strconv.FormatUint(uint64(h), 10))
}

const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// safeEncode is rand.SafeEncodeString: each byte mapped into an alphabet without vowels.
func safeEncode(s string) string {
	r := make([]byte, len(s))
	for i, b := range []byte(s) {
		r[i] = safeAlphabet[int(b)%len(safeAlphabet)]
	}
	return string(r)
}

// ReplicaSetName is generateReplicaSetName: "<deployment>-<hash>", the deployment name
// cut so that the whole fits 253 characters.
func ReplicaSetName(deploymentName, hash string) string {
	maxLen := 253 - 1 - len(hash)
	if len(deploymentName) > maxLen && maxLen > 0 {
		deploymentName = deploymentName[:maxLen]
	}
	return deploymentName + "-" + hash
}

// NewRSNewReplicas is deploymentutil.NewRSNewReplicas: the size the new ReplicaSet may
// grow to now.
func NewRSNewReplicas(d Object, allRSs []Object, newRS Object) (int64, error) {
	switch object.String(d, "spec", "strategy", "type") {
	case "RollingUpdate":
		s, _ := rollingParams(d)
		surge, err := ScaledValue(s, specReplicas(d), true)
		if err != nil {
			return 0, err
		}
		current := replicaCount(allRSs)
		maxTotal := specReplicas(d) + surge
		if current >= maxTotal {
			return specReplicas(newRS), nil
		}
		up := min(maxTotal-current, specReplicas(d)-specReplicas(newRS))
		return specReplicas(newRS) + up, nil
	case "Recreate":
		return specReplicas(d), nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", object.String(d, "spec", "strategy", "type"))
}

func replicaCount(rss []Object) int64 {
	var n int64
	for _, rs := range rss {
		if rs != nil {
			n += specReplicas(rs)
		}
	}
	return n
}

func statusSum(rss []Object, k string) int64 {
	var n int64
	for _, rs := range rss {
		if rs != nil {
			n += statusInt(rs, k)
		}
	}
	return n
}

func active(rss []Object) []Object {
	var out []Object
	for _, rs := range rss {
		if rs != nil && specReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// nonNegativeAnnotation is getNonNegativeInt32FromAnnotation.
func nonNegativeAnnotation(rs Object, k string) (int64, bool) {
	v, ok := annotation(rs, k)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int64(n), true
}

// roundToInt32 is k8s.io/utils/integer.RoundToInt32.
func roundToInt32(a float64) int64 {
	if a < 0 {
		return int64(int32(a - 0.5))
	}
	return int64(int32(a + 0.5))
}

// ReplicaSetProportion is deploymentutil.GetReplicaSetProportion: how many of toAdd
// (already added so far) the ReplicaSet takes during proportional scaling.
func ReplicaSetProportion(rs, d Object, toAdd, added int64) int64 {
	if rs == nil || specReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

func replicaSetFraction(rs, d Object) int64 {
	if specReplicas(d) == 0 {
		return -specReplicas(rs)
	}
	maxReplicas := specReplicas(d) + MaxSurge(d)
	before, ok := nonNegativeAnnotation(rs, MaxReplicasAnnotation)
	if !ok || before == 0 {
		before = statusInt(d, "replicas")
		if before == 0 {
			return 0
		}
	}
	base := specReplicas(rs)
	// The controller multiplies in int32 before converting.
	size := float64(int32(base*maxReplicas)) / float64(before)
	return roundToInt32(size) - specReplicas(rs)
}

// IsSaturated is deploymentutil.IsSaturated.
func IsSaturated(d, rs Object) bool {
	if rs == nil {
		return false
	}
	s, _ := annotation(rs, DesiredReplicasAnnotation)
	desired, err := strconv.Atoi(s)
	if err != nil {
		return false
	}
	return specReplicas(rs) == specReplicas(d) && int64(int32(desired)) == specReplicas(d) && statusInt(rs, "availableReplicas") == specReplicas(d)
}

func hasProgressDeadline(d Object) bool {
	p, ok := object.Int(d, "spec", "progressDeadlineSeconds")
	return ok && p != math.MaxInt32
}

func hasRevisionHistoryLimit(d Object) bool {
	p, ok := object.Int(d, "spec", "revisionHistoryLimit")
	return ok && p != math.MaxInt32
}
