package scenarios

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// FileError is a problem at a place in an input file.
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// selfChecked types parse their own YAML (scalars or unions) and are not
// walked for unknown keys.
type selfChecked interface{ selfChecked() }

var selfCheckedType = reflect.TypeOf((*selfChecked)(nil)).Elem()

// decodeStrict decodes YAML into v, first rejecting any mapping key that
// the target type does not declare, with the file, line and key.
func decodeStrict(file string, data []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return yamlSyntaxError(file, err)
	}
	if len(doc.Content) == 0 {
		return &FileError{File: file, Msg: "empty file"}
	}
	root := doc.Content[0]
	if err := checkKnown(file, root, reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	if err := root.Decode(v); err != nil {
		return yamlSyntaxError(file, err)
	}
	return nil
}

func yamlSyntaxError(file string, err error) error {
	if fe, ok := err.(*FileError); ok {
		return fe
	}
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg := te.Errors[0]
		line := 0
		if strings.HasPrefix(msg, "line ") {
			fmt.Sscanf(msg, "line %d:", &line)
			if i := strings.Index(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
		}
		return &FileError{File: file, Line: line, Msg: msg}
	}
	msg := err.Error()
	line := 0
	if strings.HasPrefix(msg, "yaml: line ") {
		fmt.Sscanf(msg, "yaml: line %d:", &line)
		if i := strings.Index(msg[6:], ": "); i >= 0 {
			msg = "malformed YAML: " + msg[6+i+2:]
		}
	}
	return &FileError{File: file, Line: line, Msg: msg}
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

func checkKnown(file string, n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(selfCheckedType) || t.Implements(selfCheckedType) {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			if n.Tag == "!!null" {
				return nil
			}
			return &FileError{File: file, Line: n.Line, Msg: fmt.Sprintf("%s: expected a mapping, got %s", orRoot(path), describe(n))}
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				known := make([]string, 0, len(fields))
				for name := range fields {
					known = append(known, name)
				}
				sort.Strings(known)
				return &FileError{File: file, Line: k.Line, Msg: fmt.Sprintf("unknown key %q in %s (known keys: %s)", k.Value, orRoot(path), strings.Join(known, ", "))}
			}
			if err := checkKnown(file, v, ft, join(path, k.Value)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			if n.Tag == "!!null" {
				return nil
			}
			return &FileError{File: file, Line: n.Line, Msg: fmt.Sprintf("%s: expected a list, got %s", orRoot(path), describe(n))}
		}
		for i, c := range n.Content {
			if err := checkKnown(file, c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			if n.Tag == "!!null" {
				return nil
			}
			return &FileError{File: file, Line: n.Line, Msg: fmt.Sprintf("%s: expected a mapping, got %s", orRoot(path), describe(n))}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkKnown(file, n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

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

func orRoot(p string) string {
	if p == "" {
		return "the top level"
	}
	return p
}

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

func reflectType[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }
