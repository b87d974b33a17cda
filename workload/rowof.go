package workload

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// rowCounter is a trace reader that knows the row it read last.
type rowCounter interface {
	Source
	lastRow() int
}

func (t *csvTrace) lastRow() int     { return t.line }
func (t *parquetTrace) lastRow() int { return t.row }

// RowOf finds the row of the trace file that holds job id, numbered as the
// readers' errors number rows (a CSV's header is row 1). It is for errors
// about a job found after it was read (its team is unknown, say), and reads
// the file again: it is not for the hot path.
func RowOf(path, id string, opt TraceOptions) (int, error) {
	var (
		r   rowCounter
		err error
	)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		r, err = openParquetTrace(path, opt)
	case ".csv":
		r, err = openCSVTrace(path, opt)
	default:
		return 0, fmt.Errorf("%s: unknown trace format %q", path, filepath.Ext(path))
	}
	if err != nil {
		return 0, err
	}
	defer r.Close()
	for {
		j, err := r.Next()
		if errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%s: no job %q", path, id)
		}
		if err != nil {
			return 0, err
		}
		if j.ID == id {
			return r.lastRow(), nil
		}
	}
}
