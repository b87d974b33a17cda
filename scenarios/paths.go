package scenarios

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Key paths name a value in an input file the same way everywhere: in
// error messages, in `allot tune --param` and in the places index. Keys
// are joined with dots; a list item is named in brackets by its `name`
// when it has a non-empty one (teams[research], workload.synthetic.
// classes[ranking-train].duration.median), else by its 0-based index
// (fleet.nodes[0], timeline[2]).

// itemKey is a list item's bracketed name and whether it is by name.
func itemKey(item *yaml.Node, i int) (string, bool) {
	if item.Kind == yaml.AliasNode && item.Alias != nil {
		item = item.Alias
	}
	if item.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			if k.Value == "name" && v.Kind == yaml.ScalarNode && v.Value != "" && !isNull(v) {
				return "[" + v.Value + "]", true
			}
		}
	}
	return index(i), false
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

// item names a list item by the same rule as itemKey.
func item(list, name string, i int) string {
	if name != "" {
		return list + "[" + name + "]"
	}
	return list + index(i)
}

func join(p, k string) string {
	if p == "" || strings.HasPrefix(k, "[") {
		return p + k
	}
	if k == "" {
		return p
	}
	return p + "." + k
}

// parent drops a path's last key or item.
func parent(p string) string {
	depth := 0
	for i := len(p) - 1; i >= 0; i-- {
		switch p[i] {
		case ']':
			depth++
		case '[':
			if depth--; depth == 0 {
				return p[:i]
			}
		case '.':
			if depth == 0 {
				return p[:i]
			}
		}
	}
	return ""
}

// place is where a key is written.
type place struct {
	file string
	line int
}

// places maps key paths to where they are written ("" is the file).
type places map[string]place

// add keeps the first place of a path (a repeated name is rejected anyway).
func (ps places) add(path, file string, line int) {
	if _, ok := ps[path]; !ok {
		ps[path] = place{file, line}
	}
}

// find is where path is written, else where its nearest written parent
// is: a missing key is reported where its section is.
func (ps places) find(path string) place {
	for {
		if p, ok := ps[path]; ok {
			return p
		}
		if path == "" {
			return place{line: 1}
		}
		path = parent(path)
	}
}

// under says whether path is section or lies inside it.
func under(path, section string) bool {
	return path == section || strings.HasPrefix(path, section+".") || strings.HasPrefix(path, section+"[")
}

// replace is ps with the paths under the sections taken from other.
func (ps places) replace(other places, sections ...string) places {
	inside := func(p string) bool {
		for _, s := range sections {
			if under(p, s) {
				return true
			}
		}
		return false
	}
	out := places{}
	for p, at := range ps {
		if !inside(p) {
			out[p] = at
		}
	}
	for p, at := range other {
		if inside(p) {
			out[p] = at
		}
	}
	return out
}

// onLine is the shortest path written on a line: the key that starts it.
func (ps places) onLine(line int) (string, bool) {
	best, found := "", false
	for p, at := range ps {
		if at.line == line && p != "" && (!found || len(p) < len(best) || len(p) == len(best) && p < best) {
			best, found = p, true
		}
	}
	return best, found
}
