package workload

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Rows are numbered as the readers' own errors number them: a CSV's header
// is row 1, so its first job is row 2; a Parquet file's first job is row 1.
func TestRowOfFindsTheRowThatHoldsAJob(t *testing.T) {
	jobs := []Job{
		{ID: "a", Team: "t", Accelerators: 1, Duration: 60, OrigStart: math.NaN(), OrigEnd: math.NaN()},
		{ID: "b", Submit: 5, Team: "t", Accelerators: 1, Duration: 60, OrigStart: math.NaN(), OrigEnd: math.NaN()},
	}
	for ext, first := range map[string]int{".csv": 2, ".parquet": 1} {
		p := filepath.Join(t.TempDir(), "jobs"+ext)
		_, err := WriteAll(p, NewSliceSource(jobs, nil), nil)
		require.NoError(t, err)
		row, err := RowOf(p, "b", TraceOptions{})
		require.NoError(t, err, ext)
		assert.Equal(t, first+1, row, ext)
		_, err = RowOf(p, "zz", TraceOptions{})
		assert.ErrorContains(t, err, `no job "zz"`, ext)
	}
}
