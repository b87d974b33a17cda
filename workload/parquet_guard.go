package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// checkParquetFooter reads a Parquet file's footer and checks, before
// parquet-go sees it, every length it would trust: the footer's own length
// and each list, map and string inside it. parquet-go allocates what a
// length says before reading, so a corrupt length of gigabytes is a fatal
// out-of-memory no recover can catch; here it is an error.
func checkParquetFooter(r io.ReaderAt, size int64) error {
	const tail = 8 // footer length (4) + "PAR1"
	if size < 4+tail {
		return fmt.Errorf("%d bytes is too short for a Parquet file", size)
	}
	var b [tail]byte
	if _, err := r.ReadAt(b[:], size-tail); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	switch string(b[4:]) {
	case "PAR1":
	case "PARE":
		return errors.New("encrypted Parquet files are not supported")
	default:
		return fmt.Errorf("invalid magic footer %q", b[4:])
	}
	n := int64(binary.LittleEndian.Uint32(b[:4]))
	if n > size-4-tail {
		return fmt.Errorf("footer length %d exceeds the file's %d bytes", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-tail-n); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	w := thriftWalker{b: footer}
	if err := w.value(thriftStruct, 0); err != nil {
		return fmt.Errorf("footer metadata at byte %d: %w", w.off, err)
	}
	return nil
}

// Thrift compact protocol type codes.
const (
	thriftTrue   = 1
	thriftFalse  = 2
	thriftByte   = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
	thriftUUID   = 13
)

// maxThriftDepth bounds nesting; Parquet's metadata nests a few levels.
const maxThriftDepth = 64

// thriftWalker skips one compact-protocol value, checking that every count
// fits in the bytes left (each element takes at least one byte).
type thriftWalker struct {
	b   []byte
	off int
	// onInt, when set, sees each integer field with its field-id path.
	onInt func(path []int16, v int64)
	path  []int16
}

var errThriftShort = errors.New("truncated")

func (w *thriftWalker) left() int { return len(w.b) - w.off }

func (w *thriftWalker) byte1() (byte, error) {
	if w.off >= len(w.b) {
		return 0, errThriftShort
	}
	c := w.b[w.off]
	w.off++
	return c, nil
}

func (w *thriftWalker) uvarint() (uint64, error) {
	v, k := binary.Uvarint(w.b[w.off:])
	if k <= 0 {
		return 0, errors.New("bad varint")
	}
	w.off += k
	return v, nil
}

func (w *thriftWalker) skip(n int) error {
	if n > w.left() {
		return errThriftShort
	}
	w.off += n
	return nil
}

// count reads a collection size and checks it against the bytes left.
func (w *thriftWalker) count(v uint64, perElem int) (int, error) {
	if v > uint64(w.left()/perElem) {
		return 0, fmt.Errorf("%d elements in %d bytes", v, w.left())
	}
	return int(v), nil
}

func (w *thriftWalker) value(t byte, depth int) error {
	if depth > maxThriftDepth {
		return errors.New("nested too deeply")
	}
	switch t {
	case thriftTrue, thriftFalse: // a field's bool is in its header
		return nil
	case thriftByte:
		return w.skip(1)
	case thriftI16, thriftI32, thriftI64:
		u, err := w.uvarint()
		if err == nil && w.onInt != nil {
			w.onInt(w.path, int64(u>>1)^-int64(u&1)) // zigzag
		}
		return err
	case thriftDouble:
		return w.skip(8)
	case thriftUUID:
		return w.skip(16)
	case thriftBinary:
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		if n > uint64(w.left()) {
			return fmt.Errorf("string of %d bytes in %d", n, w.left())
		}
		return w.skip(int(n))
	case thriftList, thriftSet:
		h, err := w.byte1()
		if err != nil {
			return err
		}
		size := uint64(h >> 4)
		if size == 15 {
			if size, err = w.uvarint(); err != nil {
				return err
			}
		}
		n, err := w.count(size, 1)
		if err != nil {
			return err
		}
		for range n {
			if err := w.elem(h&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case thriftMap:
		size, err := w.uvarint()
		if err != nil || size == 0 {
			return err
		}
		n, err := w.count(size, 2)
		if err != nil {
			return err
		}
		kv, err := w.byte1()
		if err != nil {
			return err
		}
		for range n {
			if err := w.elem(kv>>4, depth+1); err != nil {
				return err
			}
			if err := w.elem(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case thriftStruct:
		var id int16
		for {
			h, err := w.byte1()
			if err != nil {
				return err
			}
			if h == 0 {
				return nil
			}
			if h>>4 == 0 { // long form: the field id follows
				u, err := w.uvarint()
				if err != nil {
					return err
				}
				id = int16(int64(u>>1) ^ -int64(u&1))
			} else {
				id += int16(h >> 4)
			}
			w.path = append(w.path, id)
			err = w.value(h&0x0f, depth+1)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unknown type %d", t)
}

// elem skips a collection element: booleans take a byte there.
func (w *thriftWalker) elem(t byte, depth int) error {
	if t == thriftTrue || t == thriftFalse {
		return w.skip(1)
	}
	return w.value(t, depth)
}

// Bounds on what one page may claim; parquet-go allocates them up front.
// Trace writers use pages of a few MiB at most.
const (
	maxPageBytes  = 256 << 20
	maxPageValues = 64 << 20
)

// checkParquetPages walks every page header of every column chunk and checks
// its sizes against the chunk and the bounds above, for the same reason as
// checkParquetFooter: parquet-go allocates a page's claimed size first.
func checkParquetPages(r io.ReaderAt, size int64, chunks [][2]int64) error {
	for _, c := range chunks {
		pos, end := c[0], c[0]+c[1]
		if pos < 4 || c[1] < 0 || end > size-8 {
			return fmt.Errorf("column chunk at byte %d of %d bytes lies outside the file", c[0], c[1])
		}
		for pos < end {
			buf := make([]byte, min(end-pos, 1<<20))
			if _, err := r.ReadAt(buf, pos); err != nil {
				return fmt.Errorf("reading the page header at byte %d: %w", pos, err)
			}
			var compressed, uncompressed, values int64 = -1, -1, 0
			w := thriftWalker{b: buf, onInt: func(path []int16, v int64) {
				switch {
				case len(path) == 1 && path[0] == 2:
					uncompressed = v
				case len(path) == 1 && path[0] == 3:
					compressed = v
				case len(path) == 2 && path[1] == 1 && (path[0] == 5 || path[0] == 7 || path[0] == 8):
					values = v // num_values of a data, dictionary or v2 page
				case len(path) == 2 && path[0] == 8 && path[1] == 3:
					values = max(values, v) // num_rows of a v2 page
				}
			}}
			if err := w.value(thriftStruct, 0); err != nil {
				return fmt.Errorf("page header at byte %d: %w", pos, err)
			}
			pos += int64(w.off)
			switch {
			case compressed < 0 || compressed > end-pos:
				return fmt.Errorf("page at byte %d claims %d bytes; its column chunk has %d left", pos, compressed, end-pos)
			case uncompressed < 0 || uncompressed > maxPageBytes:
				return fmt.Errorf("page at byte %d claims %d uncompressed bytes (at most %d)", pos, uncompressed, maxPageBytes)
			case values < 0 || values > maxPageValues:
				return fmt.Errorf("page at byte %d claims %d values (at most %d)", pos, values, maxPageValues)
			}
			pos += compressed
		}
	}
	return nil
}
