package defaults

import (
	"regexp"
	"strings"
)

// The container image reference grammar of github.com/distribution/reference, which the
// apiserver's defaulting parses (parsers.ParseImageName) to choose an image pull policy.
var (
	imgDomainComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	imgDomain          = `(?:` + imgDomainComponent + `(?:\.` + imgDomainComponent + `)*` + `|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?`
	imgPathComponent   = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	imgRemoteName      = imgPathComponent + `(?:/` + imgPathComponent + `)*`
	imgName            = `(?:` + imgDomain + `/)?` + imgRemoteName
	imgTag             = `[\w][\w.-]{0,127}`
	imgDigest          = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	imgReferenceRE     = regexp.MustCompile(`^(` + imgName + `)(?::(` + imgTag + `))?(?:@(` + imgDigest + `))?$`)
	imgNameRE          = regexp.MustCompile(`^(?:(` + imgDomain + `)/)?(` + imgRemoteName + `)$`)
	imgIdentifierRE    = regexp.MustCompile(`^[a-f0-9]{64}$`)
	imgDigestHex       = map[string]*regexp.Regexp{
		"sha256": regexp.MustCompile(`^[a-f0-9]{64}$`),
		"sha384": regexp.MustCompile(`^[a-f0-9]{96}$`),
		"sha512": regexp.MustCompile(`^[a-f0-9]{128}$`),
	}
)

// imageTag returns the tag parsers.ParseImageName gives image: its tag, "latest" when it has
// neither tag nor digest, "" when it has only a digest or does not parse.
func imageTag(image string) string {
	if imgIdentifierRE.MatchString(image) {
		return ""
	}
	domain, remainder := splitImageDomain(image)
	remote := remainder
	if i := strings.IndexByte(remainder, ':'); i >= 0 {
		remote = remainder[:i]
	}
	if strings.ToLower(remote) != remote {
		return ""
	}
	m := imgReferenceRE.FindStringSubmatch(domain + "/" + remainder)
	if m == nil {
		return ""
	}
	if nm := imgNameRE.FindStringSubmatch(m[1]); nm != nil && len(nm[2]) > 255 {
		return ""
	}
	if m[3] != "" {
		alg, hex, _ := strings.Cut(m[3], ":")
		re := imgDigestHex[alg]
		if re == nil || !re.MatchString(hex) {
			return ""
		}
	}
	if m[2] == "" && m[3] == "" {
		return "latest"
	}
	return m[2]
}

func splitImageDomain(name string) (domain, remote string) {
	maybeDomain, maybeRemote, ok := strings.Cut(name, "/")
	if !ok {
		return "docker.io", "library/" + name
	}
	switch {
	case maybeDomain == "localhost":
		domain, remote = maybeDomain, maybeRemote
	case maybeDomain == "index.docker.io":
		domain, remote = "docker.io", maybeRemote
	case strings.ContainsAny(maybeDomain, ".:"):
		domain, remote = maybeDomain, maybeRemote
	case strings.ToLower(maybeDomain) != maybeDomain:
		domain, remote = maybeDomain, maybeRemote
	default:
		domain, remote = "docker.io", name
	}
	if domain == "docker.io" && !strings.ContainsRune(remote, '/') {
		remote = "library/" + remote
	}
	return domain, remote
}

// pullPolicyFor is the image pull policy defaulting gives an image: Always for the latest tag.
func pullPolicyFor(image string) string {
	if imageTag(image) == "latest" {
		return "Always"
	}
	return "IfNotPresent"
}
