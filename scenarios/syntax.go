package scenarios

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// syntaxError places a YAML syntax error. yaml.v3 reports the line where
// the enclosing block began, sometimes one off, so the line is found again
// as the first whose prefix of the file fails the same way. A line
// indented with a tab, or by the wrong amount, is named by the key path its
// key gets at the indentation where it fits.
func syntaxError(file string, data []byte, t reflect.Type, err error) error {
	yline, msg := splitYAMLLine(strings.TrimPrefix(err.Error(), "yaml: "))
	lines := strings.SplitAfter(string(data), "\n")
	line := failingLine(lines, yline, msg)
	fe := &FileError{File: file, Line: line, Msg: "malformed YAML: " + msg, Err: err}
	if line < 1 || line > len(lines) {
		return fe
	}
	text := lines[line-1]
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	path, at, ok := reindented(lines, line, t)
	switch {
	case strings.Contains(indent, "\t"):
		fe.Msg = "this line is indented with a tab; YAML indents with spaces only"
	case ok && at != len(indent):
		fe.Msg = "this line is indented by " + strconv.Itoa(len(indent)) + " spaces, which matches no enclosing block (it fits at " + strconv.Itoa(at) + "); " + fe.Msg
	}
	if ok {
		fe.Path = path
	}
	return fe
}

// splitYAMLLine splits "line N: msg" into N and msg.
func splitYAMLLine(s string) (int, string) {
	rest, ok := strings.CutPrefix(s, "line ")
	if !ok {
		return 0, s
	}
	num, msg, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return 0, s
	}
	return n, msg
}

// maxIndents bounds the indentations tried, for very deep files.
const maxIndents = 40

// failingLine is the first line whose prefix of the file fails with the
// same message, found by bisection: once a line breaks the file, longer
// prefixes break the same way. yaml.v3's own line if that does not hold.
func failingLine(lines []string, yline int, msg string) int {
	fails := func(k int) bool {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n)
		if err == nil {
			return false
		}
		_, m := splitYAMLLine(strings.TrimPrefix(err.Error(), "yaml: "))
		return m == msg
	}
	lo, hi := 0, len(lines) // the empty prefix parses; the whole file fails
	if !fails(hi) {
		return max(yline, 1)
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// reindented tries the line at each indentation the lines above it use,
// from the least, in the file up to that line; it returns the path of the
// line's key at the first where the prefix parses and the key is known
// there (its value may still be wrong).
func reindented(lines []string, line int, t reflect.Type) (path string, at int, ok bool) {
	body := strings.TrimLeft(lines[line-1], " \t")
	if strings.TrimSpace(body) == "" || strings.HasPrefix(body, "#") {
		return "", 0, false
	}
	seen := map[int]bool{}
	var indents []int
	for _, l := range lines[:line-1] {
		rest := strings.TrimLeft(l, " ")
		if strings.TrimSpace(rest) == "" || strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "\t") {
			continue
		}
		in := len(l) - len(rest)
		for _, c := range []int{in, in + 2} {
			if !seen[c] {
				seen[c] = true
				indents = append(indents, c)
			}
		}
		for strings.HasPrefix(rest, "- ") { // an item's keys sit after its dash
			in += 2
			rest = strings.TrimLeft(rest[2:], " ")
			in += len(rest) - len(strings.TrimLeft(rest, " "))
			if !seen[in] {
				seen[in] = true
				indents = append(indents, in)
			}
		}
	}
	if len(indents) == 0 {
		indents = []int{0}
	}
	slices.Sort(indents)
	if len(indents) > maxIndents {
		indents = indents[:maxIndents]
	}
	prefix := strings.Join(lines[:line-1], "")
	for _, in := range indents {
		var doc yaml.Node
		src := prefix + strings.Repeat(" ", in) + body
		if yaml.Unmarshal([]byte(src), &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		w := &walker{places: places{}, aliased: maxAliased}
		var fe *FileError
		if err := w.walk(doc.Content[0], t, ""); errors.As(err, &fe) && fe.Line == line && keyError(fe.Msg) {
			continue // the key does not belong at this indentation
		}
		if p, found := w.places.onLine(line); found {
			return p, in, true
		}
	}
	return "", 0, false
}

// keyError says whether a walk's message is about a key (not its value).
func keyError(msg string) bool {
	return strings.HasPrefix(msg, "unknown key") || strings.Contains(msg, "twice")
}
