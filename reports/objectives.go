package reports

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Lookup finds a value in the summary by a dotted path of its JSON keys,
// e.g. "by_priority_class.production.wait_s.p95".
func Lookup(s *Summary, path string) (float64, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return 0, err
	}
	var m any
	if err := json.Unmarshal(data, &m); err != nil {
		return 0, err
	}
	cur := m
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return 0, fmt.Errorf("%s: %q is not inside an object", path, part)
		}
		if cur, ok = obj[part]; !ok {
			return 0, fmt.Errorf("%s: no key %q in the run summary", path, part)
		}
	}
	v, ok := cur.(float64)
	if !ok {
		return 0, fmt.Errorf("%s: not a number", path)
	}
	return v, nil
}
