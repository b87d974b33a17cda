package local

import (
	"slices"
	"testing"
)

func TestParseNvidiaSMIReadsIndexNameAndMemory(t *testing.T) {
	out := "0, NVIDIA H100 80GB HBM3, 81559 MiB\n1, NVIDIA H100 80GB HBM3, 81559 MiB\n\n"
	got, err := ParseNvidiaSMI(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []GPU{{"0", "NVIDIA H100 80GB HBM3", 81559}, {"1", "NVIDIA H100 80GB HBM3", 81559}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseNvidiaSMIRejectsALineItCannotRead(t *testing.T) {
	for _, bad := range []string{"0, A100\n", "x, A100, 40960 MiB\n", "0, A100, [N/A]\n"} {
		if _, err := ParseNvidiaSMI(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
