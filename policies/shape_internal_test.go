package policies

import "testing"

// Jobs with equal requests share a shape (Kueue's scheduling equivalence),
// and jobs whose requests differ in anything, the order of their instance
// types included, do not, whether the key is packed or spelt out.
func TestEqualRequestsShareAShapeAndOthersDoNot(t *testing.T) {
	c, err := NewCore(twoTypeModel(false))
	if err != nil {
		t.Fatal(err)
	}
	many := make([]int, 9) // more types than a packed key holds
	reqs := []Request{
		{Accel: 2 * Milli},
		{Accel: 3 * Milli},
		{Accel: 2 * Milli, VCPU: 1 * Milli},
		{Accel: 2 * Milli, Mem: 1 * Milli},
		{Accel: 2 * Milli, Compatible: []int{0}},
		{Accel: 2 * Milli, Compatible: []int{1}},
		{Accel: 2 * Milli, Compatible: []int{0, 1}},
		{Accel: 2 * Milli, Compatible: []int{1, 0}},
		{Accel: 2 * Milli, Compatible: many},
		{Accel: 2 * Milli, PodSets: []PodSet{{Name: "main", Count: 1, PerPod: []Qty{2 * Milli}}}},
	}
	seen := map[*shape]int{}
	for i := range reqs {
		r := reqs[i]
		s := c.internShape(&r)
		if j, ok := seen[s]; ok {
			t.Fatalf("requests %d and %d differ but share a shape", j, i)
		}
		seen[s] = i
		again := reqs[i]
		again.Compatible = append([]int(nil), reqs[i].Compatible...)
		if c.internShape(&again) != s {
			t.Fatalf("request %d asked again got another shape", i)
		}
	}
}
