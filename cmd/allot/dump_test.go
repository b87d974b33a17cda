package main

import (
	"fmt"
	"os"
	"testing"
)

func TestDumpEvents(t *testing.T) {
	if os.Getenv("ALLOT_DUMP") == "" {
		t.Skip()
	}
	r := simulate(t, os.Getenv("ALLOT_DUMP"), os.Getenv("ALLOT_DUMP_POLICY"), 0, true)
	f, _ := os.Create(os.Getenv("ALLOT_DUMP_OUT"))
	for _, e := range r.rec.events {
		fmt.Fprintf(f, "%.6f %d %d %d %s\n", e.Time, e.Kind, e.Job, e.Type, e.Reason)
	}
	f.Close()
}
