package workload

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSampleParquet writes sampleJobs as a Parquet trace with these
// extra columns and returns its path.
func writeSampleParquet(t testing.TB, extra []string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.parquet")
	w, err := CreateTrace(p, extra)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range sampleJobs() {
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A footer length of gigabytes used to be allocated before it was checked:
// a fatal out-of-memory, not an error.
func TestParquetFooterLongerThanTheFileIsBadInput(t *testing.T) {
	p := writeSampleParquet(t, nil)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(data[len(data)-8:], 0x7fffffff)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = OpenTrace(p, TraceOptions{})
	if err == nil || !strings.Contains(err.Error(), p+": not a readable Parquet file: footer length 2147483647 exceeds the file's") {
		t.Fatalf("got %v", err)
	}
}

// pageHeader encodes a Parquet page header in Thrift's compact protocol:
// type (1), uncompressed size (2), compressed size (3), all i32.
func pageHeader(uncompressed, compressed int32) []byte {
	var b []byte
	for _, v := range []int32{0, uncompressed, compressed} {
		b = append(b, 0x15) // field id +1, type i32
		b = binary.AppendUvarint(b, uint64(uint32((v<<1)^(v>>31))))
	}
	return append(b, 0) // stop
}

func TestParquetPageSizesAreCheckedBeforeParquetGoAllocatesThem(t *testing.T) {
	head := []byte("PAR1")
	for _, c := range []struct {
		name                     string
		uncompressed, compressed int32
		want                     string
	}{
		{"fits", 10, 10, ""},
		{"compressed beyond the chunk", 10, 1 << 30, "claims 1073741824 bytes; its column chunk has 10 left"},
		{"uncompressed beyond the bound", 1 << 30, 10, "claims 1073741824 uncompressed bytes"},
		{"negative", -1, 10, "claims -1 uncompressed bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := pageHeader(c.uncompressed, c.compressed)
			file := append(append(append([]byte{}, head...), h...), make([]byte, 10+8)...)
			err := checkParquetPages(bytes.NewReader(file), int64(len(file)), [][2]int64{{4, int64(len(h) + 10)}})
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestThriftWalkerRejectsCountsLargerThanTheBytesLeft(t *testing.T) {
	// A struct whose field 1 is a list of 2^31 i32s, in 8 bytes.
	b := []byte{0x19, 0xf5, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00}
	w := thriftWalker{b: b}
	if err := w.value(thriftStruct, 0); err == nil || !strings.Contains(err.Error(), "2147483648 elements in 1 bytes") {
		t.Fatalf("got %v", err)
	}
}
