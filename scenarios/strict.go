package scenarios

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileError is a problem at a place in an input file. It reads
// FILE:LINE: key.path: message, the first line `allot` prints for it.
type FileError struct {
	File string
	Line int
	Path string // the full key path (see itemKey); "" for the file as a whole
	Msg  string // what was expected; Err's text when empty
	Err  error  // the cause, if another error is behind it
}

func (e *FileError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	if e.Msg != "" || e.Err == nil {
		b.WriteString(e.Msg)
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *FileError) Unwrap() error { return e.Err }

// selfChecked types parse their own scalar; the walk decodes them to check
// them and is told their error.
type selfChecked interface{ selfChecked() }

// union types take one of several shapes (a number or a mapping, ...): the
// walk checks the node as the shape it has, or says what was expected.
type union interface {
	shape(n *yaml.Node) (t reflect.Type, expected string)
}

var (
	selfCheckedType = reflect.TypeOf((*selfChecked)(nil)).Elem()
	unionType       = reflect.TypeOf((*union)(nil)).Elem()
)

// decodeStrict decodes YAML into v. It first walks the document against
// v's type, so that an unknown or repeated key, or a value of the wrong
// type, is reported with the file, its line and its full key path; it
// returns where every key path is written.
func decodeStrict(file string, data []byte, v any, without ...string) (places, error) {
	var doc yaml.Node
	t := reflect.TypeOf(v).Elem()
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(file, data, t, err)
	}
	if len(doc.Content) == 0 {
		return nil, &FileError{File: file, Line: 1, Msg: "empty file"}
	}
	w := &walker{file: file, places: places{"": {file, 1}}, aliased: maxAliased}
	root := doc.Content[0]
	dropKeys(root, without)
	if err := w.walk(root, t, ""); err != nil {
		return nil, err
	}
	if err := root.Decode(v); err != nil {
		// The walk checks what decoding checks; this is a safety net.
		return nil, &FileError{File: file, Line: 1, Msg: "cannot decode: " + yamlMessage(err), Err: err}
	}
	return w.places, nil
}

// dropKeys removes the named keys (and their values) from a mapping.
func dropKeys(m *yaml.Node, keys []string) {
	if m.Kind != yaml.MappingNode || len(keys) == 0 {
		return
	}
	kept := m.Content[:0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !slices.Contains(keys, m.Content[i].Value) {
			kept = append(kept, m.Content[i], m.Content[i+1])
		}
	}
	m.Content = kept
}

// walker checks a YAML node tree against a Go type.
type walker struct {
	file    string
	places  places
	aliased int // how many more values it may visit through aliases
}

// maxAliased bounds the values reached through aliases, which can nest to
// expand exponentially (yaml.v3's decoder has a like limit).
const maxAliased = 100000

func (w *walker) errAt(n *yaml.Node, path, format string, args ...any) error {
	return &FileError{File: w.file, Line: n.Line, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		if w.aliased <= 0 {
			return w.errAt(n, path, "the aliases here expand to too many values")
		}
		w.aliased -= size(n.Alias)
		n = n.Alias
	}
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(unionType):
		st, expected := reflect.New(t).Interface().(union).shape(n)
		if st == nil {
			return w.errAt(n, path, "expected %s, got %s", expected, describe(n))
		}
		return w.walk(n, st, path)
	case pt.Implements(selfCheckedType):
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			return w.errAt(n, path, "%s", yamlMessage(err))
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return w.errAt(n, path, "expected a mapping, got %s", describe(n))
		}
		fields := yamlFields(t)
		return w.entries(n, path, func(k, v *yaml.Node, kp string) error {
			ft, ok := fields[k.Value]
			if !ok {
				return w.errAt(k, kp, "%s", unknownKey(k.Value, path, fields))
			}
			return w.walk(v, ft, kp)
		})
	case reflect.Map:
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return w.errAt(n, path, "expected a mapping, got %s", describe(n))
		}
		return w.entries(n, path, func(_, v *yaml.Node, kp string) error {
			return w.walk(v, t.Elem(), kp)
		})
	case reflect.Slice:
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return w.errAt(n, path, "expected a list, got %s", describe(n))
		}
		named := map[string]int{}
		for i, c := range n.Content {
			key, byName := itemKey(c, i)
			ip := path + key
			if byName {
				if first, dup := named[key]; dup {
					return w.errAt(c, ip, "name %q is defined twice (first at line %d)", key[1:len(key)-1], first)
				}
				named[key] = c.Line
			}
			w.places.add(ip, w.file, c.Line)
			if err := w.walk(c, t.Elem(), ip); err != nil {
				return err
			}
		}
		return nil
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		return w.errAt(n, path, "expected %s, got %s", expectedKind(t), describe(n))
	}
	return nil
}

// entries visits a mapping's entries with their key paths, rejecting a
// key written twice.
func (w *walker) entries(n *yaml.Node, path string, visit func(k, v *yaml.Node, kp string) error) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := join(path, k.Value)
		if first, dup := seen[k.Value]; dup {
			return w.errAt(k, kp, "this key appears twice (first at line %d)", first)
		}
		seen[k.Value] = k.Line
		w.places.add(kp, w.file, k.Line)
		if err := visit(k, v, kp); err != nil {
			return err
		}
	}
	return nil
}

func unknownKey(key, path string, fields map[string]reflect.Type) string {
	known := make([]string, 0, len(fields))
	for name := range fields {
		known = append(known, name)
	}
	sort.Strings(known)
	msg := fmt.Sprintf("unknown key %q in %s", key, orRoot(path))
	if s := closest(key, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg + " (known keys: " + strings.Join(known, ", ") + ")"
}

// closest is the known key within two edits of key, if there is one.
func closest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func expectedKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number >= 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a single value"
	}
	return "a " + t.String()
}

func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name := strings.Split(tag, ",")[0]
		if name == "-" || !f.IsExported() {
			continue
		}
		if strings.Contains(tag, ",inline") {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// size counts a node's values, up to maxAliased.
func size(n *yaml.Node) int {
	total := 1
	for _, c := range n.Content {
		if total += size(c); total > maxAliased {
			break
		}
	}
	return total
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "something else"
}

// yamlMessage is an error's text without yaml.v3's prefixes.
func yamlMessage(err error) string {
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		_, msg := splitYAMLLine(te.Errors[0])
		return msg
	}
	_, msg := splitYAMLLine(strings.TrimPrefix(err.Error(), "yaml: "))
	return msg
}

func orRoot(p string) string {
	if p == "" {
		return "the top level"
	}
	return p
}

func reflectType[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

// Keys lists every key path a scenario file (or a policy file, whose keys
// are among them) may hold, with list items and map keys left out:
// "policy.placement_timeout", "teams.quota.*.vcpus". The documents are
// checked against it.
func Keys() []string { return keyPaths(reflectType[fileYAML](), "") }

// SnapshotKeys is Keys for a snapshot file (allot cycle).
func SnapshotKeys() []string { return keyPaths(reflectType[snapshotYAML](), "") }

func keyPaths(t reflect.Type, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(unionType): // its mapping form, if it has one
		st, _ := reflect.New(t).Interface().(union).shape(&yaml.Node{Kind: yaml.MappingNode})
		if st == nil {
			return nil
		}
		return keyPaths(st, path)
	case pt.Implements(selfCheckedType):
		return nil
	}
	var out []string
	switch t.Kind() {
	case reflect.Struct:
		fields := yamlFields(t)
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			kp := join(path, k)
			out = append(append(out, kp), keyPaths(fields[k], kp)...)
		}
	case reflect.Map:
		out = keyPaths(t.Elem(), join(path, "*"))
	case reflect.Slice:
		out = keyPaths(t.Elem(), path)
	}
	return out
}
