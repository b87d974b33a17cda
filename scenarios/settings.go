package scenarios

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Setting is one value to write at a key path of a scenario or policy
// file, the path as error messages name it: teams[research].weight,
// teams[*-sweeps].quota.p5.48xlarge, policy.preemption.min_runtime. A
// list item is named by its name (a glob matches several, * all) or its
// index.
type Setting struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// PolicyFileSections are the sections a policy file holds
// (spec/scenario.md): the four policy sections, and the fleet and live
// sections live serve reads (--policy ignores those two).
var PolicyFileSections = []string{"fleet", "cohorts", "teams", "priority_classes", "policy", "live"}

// EditYAML writes settings into a YAML document, creating the mappings a
// path needs below an existing key, and returns the new document. Comments
// and the order of keys are kept.
func EditYAML(data []byte, set []Setting) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a YAML mapping")
	}
	for _, st := range set {
		parts, err := splitPath(st.Path)
		if err != nil {
			return nil, err
		}
		if err := setAt(doc.Content[0], parts, st.Path, st.Value); err != nil {
			return nil, err
		}
	}
	return marshal(&doc)
}

// marshal writes YAML indented by two spaces, as the shipped files are.
func marshal(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// PolicyFileYAML keeps only the sections of a policy file, in the order
// they were written: what `allot tune -o` writes, --policy FILE and live
// serve --config read.
func PolicyFileYAML(data []byte, header string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	root := doc.Content[0]
	out := &yaml.Node{Kind: yaml.MappingNode, HeadComment: header}
	for i := 0; i+1 < len(root.Content); i += 2 {
		for _, k := range PolicyFileSections {
			if root.Content[i].Value == k {
				out.Content = append(out.Content, root.Content[i], root.Content[i+1])
			}
		}
	}
	return marshal(out)
}

// pathPart is one step of a key path: a key, and for a list an item
// selector.
type pathPart struct {
	key      string
	selector string
	list     bool
}

func splitPath(p string) ([]pathPart, error) {
	var out []pathPart
	for rest := p; rest != ""; {
		var seg string
		if i := strings.IndexAny(rest, ".["); i < 0 {
			seg, rest = rest, ""
		} else if rest[i] == '.' {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			j := strings.IndexByte(rest, ']')
			if j < i {
				return nil, fmt.Errorf("%s: unclosed [ in the key path", p)
			}
			out = append(out, pathPart{key: rest[:i], selector: rest[i+1 : j], list: true})
			rest = strings.TrimPrefix(rest[j+1:], ".")
			continue
		}
		if seg == "" {
			return nil, fmt.Errorf("%s: empty key in the key path", p)
		}
		out = append(out, pathPart{key: seg})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty key path")
	}
	return out, nil
}

// setAt writes value at parts below a mapping node.
func setAt(n *yaml.Node, parts []pathPart, full, value string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: %q is not inside a mapping", full, parts[0].key)
	}
	// A key may hold dots (p5.48xlarge): take the longest run of parts
	// that names an existing key.
	key, used := parts[0].key, 1
	var child *yaml.Node
	for k := len(parts); k >= 1; k-- {
		if slicesHaveList(parts[:k-1]) {
			continue
		}
		name := joinKeys(parts[:k])
		if c := lookup(n, name); c != nil {
			key, used, child = name, k, c
			break
		}
	}
	last := parts[used-1]
	if child == nil {
		if last.list {
			return fmt.Errorf("%s: no key %q to select items of", full, last.key)
		}
		if used == len(parts) {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, scalar(value))
			return nil
		}
		child = &yaml.Node{Kind: yaml.MappingNode}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, child)
	}
	rest := parts[used:]
	if last.list {
		items, err := selectItems(child, last, full)
		if err != nil {
			return err
		}
		for _, it := range items {
			if len(rest) == 0 {
				return fmt.Errorf("%s: a list item is not a value to set", full)
			}
			if err := setAt(it, rest, full, value); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rest) == 0 {
		// A quota written {accelerators: N, ...} takes the value as its
		// accelerators.
		if child.Kind == yaml.MappingNode {
			if acc := lookup(child, "accelerators"); acc != nil {
				*acc = *scalar(value)
				return nil
			}
			return fmt.Errorf("%s: holds a mapping, not a value", full)
		}
		*child = *scalar(value)
		return nil
	}
	if child.Kind == yaml.MappingNode && child.Style&yaml.FlowStyle != 0 {
		child.Style = 0 // a flow mapping gaining keys reads better in block style
	}
	return setAt(child, rest, full, value)
}

func slicesHaveList(ps []pathPart) bool {
	for _, p := range ps {
		if p.list {
			return true
		}
	}
	return false
}

func joinKeys(ps []pathPart) string {
	keys := make([]string, len(ps))
	for i, p := range ps {
		keys[i] = p.key
	}
	return strings.Join(keys, ".")
}

func lookup(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// selectItems picks a list's items by name (a glob) or index.
func selectItems(list *yaml.Node, p pathPart, full string) ([]*yaml.Node, error) {
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: %s is not a list", full, p.key)
	}
	if i, err := strconv.Atoi(p.selector); err == nil {
		if i < 0 || i >= len(list.Content) {
			return nil, fmt.Errorf("%s: %s has no item %d", full, p.key, i)
		}
		return []*yaml.Node{list.Content[i]}, nil
	}
	var out []*yaml.Node
	for _, it := range list.Content {
		name := lookup(it, "name")
		if name == nil {
			continue
		}
		if ok, err := path.Match(p.selector, name.Value); err != nil {
			return nil, fmt.Errorf("%s: bad pattern %q: %w", full, p.selector, err)
		} else if ok {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no item of %s is named %q", full, p.key, p.selector)
	}
	return out, nil
}

func scalar(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	if _, err := strconv.ParseFloat(v, 64); err != nil && v != "true" && v != "false" {
		n.Style = 0
		n.Tag = "!!str"
	}
	return n
}

// WithoutSection returns a YAML document without one top-level key (a
// tuned policy file's fleet, for a cluster whose nodes are the fleet);
// the same document when it has none.
func WithoutSection(data []byte, key string) ([]byte, bool, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, false, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, false, nil
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			root.Content = append(root.Content[:i], root.Content[i+2:]...)
			out, err := marshal(&doc)
			return out, true, err
		}
	}
	return data, false, nil
}
