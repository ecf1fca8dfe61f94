package admission

import (
	"unicode"
	"unicode/utf8"
)

// The limits of kube-apiserver's warning recorder (k8s.io/apiserver
// pkg/endpoints/filters/warning.go): once the texts written would pass
// ResponseWarningTotalRunes runes in all, every text is cut to
// ResponseWarningItemRunes runes.
const (
	ResponseWarningTotalRunes = 4 * 1024
	ResponseWarningItemRunes  = 256
)

// ResponseWarnings returns the texts of the Warning headers kube-apiserver's
// response carries when a request recorded warnings in the order given (by
// admission, or by any other step sharing the request's recorder): what a
// client reads back, one text per header, in order.
//
// The rule is the apiserver's recorder's, applied as each warning arrives:
//
//   - an empty text is dropped, and so is a text already recorded (the
//     comparison is on the whole text, before any truncation);
//   - a text that is not valid UTF-8 or holds a control character cannot be
//     written as a header and is dropped, though it counts as recorded;
//   - texts are written whole while the runes written stay within
//     ResponseWarningTotalRunes (a text that lands exactly on the limit is
//     written whole);
//   - the first text that would pass the limit turns truncation on: every
//     text recorded so far, that one included, is written again, each cut to
//     its first ResponseWarningItemRunes runes with no marker (an invalid
//     text cut this way has its bad bytes as U+FFFD and may then be written);
//     later texts are cut the same way and written while fewer than
//     ResponseWarningTotalRunes runes have been written since truncation
//     began (so the total may end past the limit).
//
// texts is not modified; the result is a fresh slice (nil when nothing is
// written).
func ResponseWarnings(texts []string) []string {
	var r warningRecorder
	for _, t := range texts {
		r.add(t)
	}
	return r.headers
}

// warningRecorder is the apiserver's recorder with the Warning headers as a
// list of texts.
type warningRecorder struct {
	recorded   map[string]bool
	ordered    []string
	headers    []string
	written    int
	truncating bool
}

func (r *warningRecorder) add(text string) {
	if text == "" {
		return
	}
	if r.truncating && r.written >= ResponseWarningTotalRunes {
		return
	}
	if r.recorded == nil {
		r.recorded = map[string]bool{}
	}
	if r.recorded[text] {
		return
	}
	r.recorded[text] = true
	r.ordered = append(r.ordered, text)
	n := utf8.RuneCountInString(text)
	if r.truncating && n > ResponseWarningItemRunes {
		text, n = truncateRunes(text), ResponseWarningItemRunes
	}
	if !headerText(text) {
		return
	}
	if r.truncating || r.written+n <= ResponseWarningTotalRunes {
		r.written += n
		r.headers = append(r.headers, text)
		return
	}
	// Replay everything recorded, cut to the per-item limit.
	r.truncating = true
	r.written = 0
	r.headers = nil
	for _, t := range r.ordered {
		n := utf8.RuneCountInString(t)
		if n > ResponseWarningItemRunes {
			t, n = truncateRunes(t), ResponseWarningItemRunes
		}
		if headerText(t) {
			r.written += n
			r.headers = append(r.headers, t)
		}
	}
}

// truncateRunes is string([]rune(s)[:ResponseWarningItemRunes]): invalid
// bytes become U+FFFD.
func truncateRunes(s string) string {
	return string([]rune(s)[:ResponseWarningItemRunes])
}

// headerText is what net.NewWarningHeader accepts as a text: valid UTF-8
// without control characters.
func headerText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if unicode.IsControl(c) {
			return false
		}
	}
	return true
}
