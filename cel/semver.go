package cel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SemverVersion is a semantic version as github.com/blang/semver/v4 parses it (the library the
// apiserver's semver() uses): numeric major.minor.patch, dot-separated pre-release identifiers
// and build metadata.
type SemverVersion struct {
	Major, Minor, Patch uint64
	Pre                 []semverPR
	Build               []string
}

type semverPR struct {
	str   string
	num   uint64
	isNum bool
}

const (
	semverNumbers  = "0123456789"
	semverAlphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + semverNumbers
)

func containsOnly(s, set string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(set, r) }) == -1
}

func hasLeadingZeroes(s string) bool { return len(s) > 1 && s[0] == '0' }

// ParseSemver parses s strictly, with blang/semver's error texts.
func ParseSemver(s string) (SemverVersion, error) {
	if len(s) == 0 {
		return SemverVersion{}, errors.New("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return SemverVersion{}, errors.New("No Major.Minor.Patch elements found")
	}
	if !containsOnly(parts[0], semverNumbers) {
		return SemverVersion{}, fmt.Errorf("Invalid character(s) found in major number %q", parts[0])
	}
	if hasLeadingZeroes(parts[0]) {
		return SemverVersion{}, fmt.Errorf("Major number must not contain leading zeroes %q", parts[0])
	}
	major, err := strconv.ParseUint(parts[0], 10, 64)
	if err != nil {
		return SemverVersion{}, err
	}
	if !containsOnly(parts[1], semverNumbers) {
		return SemverVersion{}, fmt.Errorf("Invalid character(s) found in minor number %q", parts[1])
	}
	if hasLeadingZeroes(parts[1]) {
		return SemverVersion{}, fmt.Errorf("Minor number must not contain leading zeroes %q", parts[1])
	}
	minor, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return SemverVersion{}, err
	}
	v := SemverVersion{Major: major, Minor: minor}
	var build, prerelease []string
	patchStr := parts[2]
	if i := strings.IndexRune(patchStr, '+'); i != -1 {
		build = strings.Split(patchStr[i+1:], ".")
		patchStr = patchStr[:i]
	}
	if i := strings.IndexRune(patchStr, '-'); i != -1 {
		prerelease = strings.Split(patchStr[i+1:], ".")
		patchStr = patchStr[:i]
	}
	if !containsOnly(patchStr, semverNumbers) {
		return SemverVersion{}, fmt.Errorf("Invalid character(s) found in patch number %q", patchStr)
	}
	if hasLeadingZeroes(patchStr) {
		return SemverVersion{}, fmt.Errorf("Patch number must not contain leading zeroes %q", patchStr)
	}
	if v.Patch, err = strconv.ParseUint(patchStr, 10, 64); err != nil {
		return SemverVersion{}, err
	}
	for _, p := range prerelease {
		pr, err := newPRVersion(p)
		if err != nil {
			return SemverVersion{}, err
		}
		v.Pre = append(v.Pre, pr)
	}
	for _, b := range build {
		if len(b) == 0 {
			return SemverVersion{}, errors.New("Build meta data is empty")
		}
		if !containsOnly(b, semverAlphanum) {
			return SemverVersion{}, fmt.Errorf("Invalid character(s) found in build meta data %q", b)
		}
		v.Build = append(v.Build, b)
	}
	return v, nil
}

func newPRVersion(s string) (semverPR, error) {
	if len(s) == 0 {
		return semverPR{}, errors.New("Prerelease is empty")
	}
	if containsOnly(s, semverNumbers) {
		if hasLeadingZeroes(s) {
			return semverPR{}, fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", s)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return semverPR{}, err
		}
		return semverPR{num: n, isNum: true}, nil
	}
	if containsOnly(s, semverAlphanum) {
		return semverPR{str: s}, nil
	}
	return semverPR{}, fmt.Errorf("Invalid character(s) found in prerelease %q", s)
}

// normalizeAndParseSemver is semver(s, true): a leading "v" is dropped, leading zeros are
// removed, missing minor/patch become 0.
func normalizeAndParseSemver(s string) (SemverVersion, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		if len(p) > 1 {
			p = strings.TrimLeft(p, "0")
			if len(p) == 0 || !strings.ContainsAny(p[0:1], "0123456789") {
				p = "0" + p
			}
			parts[i] = p
		}
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return SemverVersion{}, errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return ParseSemver(strings.Join(parts, "."))
}

func cmpU(a, b uint64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

func (p semverPR) compare(o semverPR) int {
	switch {
	case p.isNum && !o.isNum:
		return -1
	case !p.isNum && o.isNum:
		return 1
	case p.isNum:
		return cmpU(p.num, o.num)
	}
	return strings.Compare(p.str, o.str)
}

// Compare orders versions by semver precedence (build metadata ignored).
func (v SemverVersion) Compare(o SemverVersion) int {
	if c := cmpU(v.Major, o.Major); c != 0 {
		return c
	}
	if c := cmpU(v.Minor, o.Minor); c != 0 {
		return c
	}
	if c := cmpU(v.Patch, o.Patch); c != 0 {
		return c
	}
	switch {
	case len(v.Pre) == 0 && len(o.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(o.Pre) == 0:
		return -1
	}
	i := 0
	for ; i < len(v.Pre) && i < len(o.Pre); i++ {
		if c := v.Pre[i].compare(o.Pre[i]); c != 0 {
			return c
		}
	}
	switch {
	case i == len(v.Pre) && i == len(o.Pre):
		return 0
	case i == len(v.Pre):
		return -1
	}
	return 1
}

// String renders v in semver syntax.
func (v SemverVersion) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d.%d.%d", v.Major, v.Minor, v.Patch)
	for i, p := range v.Pre {
		if i == 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte('.')
		}
		if p.isNum {
			b.WriteString(strconv.FormatUint(p.num, 10))
		} else {
			b.WriteString(p.str)
		}
	}
	for i, s := range v.Build {
		if i == 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}
