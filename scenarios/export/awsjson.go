package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// awsDoc is an AWS API document read from a file: a response as the AWS
// CLI prints it, or an input as --cli-input-json takes it. Members are the
// API's (lowerCamelCase for Batch, PascalCase for SageMaker); the SDK's Go
// fields carry the same names with the first letter upper case, so a
// member is matched to the field of that name, case aside.
type awsDoc struct {
	file string
	root map[string]any
	// unknown are the members the SDK's type lacks (a newer API's, or a
	// typo), by JSON path with indices as [*]: read past, and warned of.
	unknown []string
}

// awsPathError is a value that does not fit its member: file, JSON path,
// what was wanted.
type awsPathError struct {
	file, path, msg string
}

func (e *awsPathError) Error() string { return fmt.Sprintf("%s: %s: %s", e.file, e.path, e.msg) }

// readAWSDoc parses a JSON object; a syntax error names its line.
func readAWSDoc(file string, data []byte) (*awsDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: line %d: not JSON: %w", file, 1+bytes.Count(data[:se.Offset], []byte("\n")), err)
		}
		return nil, fmt.Errorf("%s: not JSON: %w", file, err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a JSON object (an AWS CLI response or --cli-input-json input), got %s", file, jsonKind(v))
	}
	return &awsDoc{file: file, root: root}, nil
}

// has says whether the document has any of the members.
func (d *awsDoc) has(members ...string) bool {
	for _, m := range members {
		if _, ok := d.root[m]; ok {
			return true
		}
	}
	return false
}

// decode decodes the whole document into out, a pointer to an SDK type.
func (d *awsDoc) decode(out any) error {
	return d.value(reflect.ValueOf(out).Elem(), d.root, "")
}

// decodeAt decodes one member of the document into out.
func (d *awsDoc) decodeAt(member string, out any) error {
	return d.value(reflect.ValueOf(out).Elem(), d.root[member], member)
}

var timeType = reflect.TypeOf(time.Time{})

// value decodes v into dst, path naming v.
func (d *awsDoc) value(dst reflect.Value, v any, path string) error {
	if v == nil {
		return nil // null: the member unset
	}
	fail := func(want string) error {
		return &awsPathError{d.file, pathOrRoot(path), fmt.Sprintf("want %s, got %s", want, jsonKind(v))}
	}
	switch dst.Kind() {
	case reflect.Pointer:
		elem := reflect.New(dst.Type().Elem())
		if err := d.value(elem.Elem(), v, path); err != nil {
			return err
		}
		dst.Set(elem)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fail("a string")
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fail("true or false")
		}
		dst.SetBool(b)
	case reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || dst.OverflowInt(i) {
			return fail(fmt.Sprintf("a whole number (%s)", dst.Kind()))
		}
		dst.SetInt(i)
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil || dst.OverflowFloat(f) {
			return fail("a number")
		}
		dst.SetFloat(f)
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return fail("a list")
		}
		out := reflect.MakeSlice(dst.Type(), len(list), len(list))
		for i, item := range list {
			if err := d.value(out.Index(i), item, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		dst.Set(out)
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return fail("an object")
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(obj))
		for _, k := range sortedKeys(obj) {
			elem := reflect.New(dst.Type().Elem()).Elem()
			if err := d.value(elem, obj[k], join(path, k)); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), elem)
		}
		dst.Set(out)
	case reflect.Struct:
		if dst.Type() == timeType {
			return d.timestamp(dst, v, path)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return fail("an object")
		}
		return d.object(dst, obj, path)
	default:
		// No decoded type holds a document or union (the tests walk them).
		return &awsPathError{d.file, pathOrRoot(path), fmt.Sprintf("a %s member, which this import does not read", dst.Type())}
	}
	return nil
}

// object decodes the members of obj into the struct dst; a member dst
// lacks is noted in unknown.
func (d *awsDoc) object(dst reflect.Value, obj map[string]any, path string) error {
	t := dst.Type()
	for _, k := range sortedKeys(obj) {
		f, ok := t.FieldByNameFunc(func(name string) bool { return strings.EqualFold(name, k) })
		if !ok || !f.IsExported() || f.Name == "ResultMetadata" {
			d.unknown = append(d.unknown, join(path, k))
			continue
		}
		if err := d.value(dst.FieldByIndex(f.Index), obj[k], join(path, k)); err != nil {
			return err
		}
	}
	return nil
}

// timestamp reads a SageMaker timestamp: epoch seconds on the wire, an
// ISO 8601 string as the AWS CLI prints it.
func (d *awsDoc) timestamp(dst reflect.Value, v any, path string) error {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			sec, frac := math.Modf(f)
			dst.Set(reflect.ValueOf(time.Unix(int64(sec), int64(frac*1e9)).UTC()))
			return nil
		}
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			dst.Set(reflect.ValueOf(t))
			return nil
		}
	}
	return &awsPathError{d.file, pathOrRoot(path), fmt.Sprintf("want a time (epoch seconds or RFC 3339), got %s", jsonKind(v))}
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// unknownMembers are the members read past, each once, indices as [*].
func (d *awsDoc) unknownMembers() []string {
	var out []string
	for _, p := range d.unknown {
		out = append(out, indexRE.ReplaceAllString(p, "[*]"))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	if key == "" {
		return path
	}
	return path + "." + key
}

func pathOrRoot(path string) string {
	if path == "" {
		return "(the document)"
	}
	return path
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonKind says what a JSON value is, for errors.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprint(x)
	case []any:
		return "a list"
	default:
		return "an object"
	}
}
