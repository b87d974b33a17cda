package live

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// StoreDamagedError is a store file the daemon will not run on. It names
// the file and says how to restore it; nothing was written to it.
type StoreDamagedError struct {
	Path string
	Why  string
}

func (e *StoreDamagedError) Error() string {
	return fmt.Sprintf("%s: %s. The daemon has not touched it. Restore a copy made with `allot live backup` "+
		"over it (with the daemon stopped), or move it aside to start with an empty store, which forgets every job "+
		"(running jobs' processes are not stopped: stop them first)", e.Path, e.Why)
}

// bbolt's file layout: pages 0 and 1 are meta pages, each a 16-byte page
// header then the meta (magic, version, page size, flags, root bucket,
// freelist, high-water page id, transaction id, checksum).
const (
	boltMagic   = 0xED0CDAED
	boltVersion = 2
	pageHeader  = 16
	metaSize    = 64
)

type boltMeta struct {
	pageSize   uint32
	highWater  uint64 // pages in use: the file must hold at least this many
	txid       uint64
	valid      bool
	whyInvalid string
}

func readMeta(b []byte) boltMeta {
	if len(b) < pageHeader+metaSize {
		return boltMeta{whyInvalid: "too short"}
	}
	m := b[pageHeader : pageHeader+metaSize]
	le := binary.LittleEndian
	if le.Uint32(m[0:]) != boltMagic {
		return boltMeta{whyInvalid: "not a bbolt meta page"}
	}
	if v := le.Uint32(m[4:]); v != boltVersion {
		return boltMeta{whyInvalid: fmt.Sprintf("format version %d", v)}
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != le.Uint64(m[56:]) {
		return boltMeta{whyInvalid: "checksum mismatch"}
	}
	return boltMeta{pageSize: le.Uint32(m[8:]), highWater: le.Uint64(m[40:]), txid: le.Uint64(m[48:]), valid: true}
}

// CheckStoreFile checks a store file before the daemon opens it for
// writing: present and not empty, a meta page intact, and long enough for
// the pages its last transaction uses (a truncated file would be mapped
// and fault later). A missing file is fine: a new store is made.
func CheckStoreFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &StoreDamagedError{path, "not a plain file"}
	}
	size := fi.Size()
	if size == 0 {
		return &StoreDamagedError{path, "it is empty (0 bytes): the history it held is gone"}
	}
	head := make([]byte, 64<<10)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	m0 := readMeta(head)
	ps := uint32(4096)
	if m0.valid {
		ps = m0.pageSize
	}
	var m1 boltMeta
	if int64(ps)+pageHeader+metaSize <= size {
		buf := make([]byte, pageHeader+metaSize)
		if _, err := f.ReadAt(buf, int64(ps)); err == nil {
			m1 = readMeta(buf)
		}
	} else {
		m1.whyInvalid = "missing"
	}
	best := m0
	if m1.valid && (!m0.valid || m1.txid > m0.txid) {
		best = m1
	}
	if !best.valid {
		return &StoreDamagedError{path, fmt.Sprintf("no intact meta page (page 0: %s; page 1: %s): not an allot store, or damaged", m0.whyInvalid, m1.whyInvalid)}
	}
	if need := int64(best.highWater) * int64(best.pageSize); size < need {
		return &StoreDamagedError{path, fmt.Sprintf("it is truncated: %d bytes, but its last transaction uses %d", size, need)}
	}
	return nil
}

// VerifyStore reads every page and record of a store file, read-only:
// bbolt's own consistency check, then every job and event decoded. Run it
// in a process of its own (`allot live check-store`): a store damaged
// enough can crash the reader, which must not be the daemon.
func VerifyStore(path string) (err error) {
	debug.SetPanicOnFault(true)
	defer func() {
		if r := recover(); r != nil {
			err = &StoreDamagedError{path, fmt.Sprintf("reading it failed: %v", r)}
		}
	}()
	if err := CheckStoreFile(path); err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return fmt.Errorf("%s is in use by another process", path)
	}
	if err != nil {
		return &StoreDamagedError{path, err.Error()}
	}
	defer db.Close()
	var problems []string
	err = db.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			// bbolt reports what it recovered from as "panic: ...".
			problems = append(problems, strings.TrimPrefix(e.Error(), "panic: "))
			if len(problems) == 5 {
				break
			}
		}
		return nil
	})
	if err == nil && len(problems) == 0 {
		s := &Store{db: db}
		if _, err = s.Jobs(); err == nil {
			_, err = s.Events("")
		}
	}
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return &StoreDamagedError{path, "its pages are inconsistent: " + strings.Join(problems, "; ")}
	}
	return nil
}

// pidFile names the daemon that holds a data directory.
const pidFile = "daemon.pid"

// HeldBy says which daemon holds the store in dataDir: its pid, or 0 when
// none holds it (the store's lock is free).
func HeldBy(dataDir string) (int, error) {
	f, err := os.OpenFile(filepath.Join(dataDir, "state.db"), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	if err == nil {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0, nil
	}
	if !errors.Is(err, unix.EWOULDBLOCK) {
		return 0, err
	}
	data, _ := os.ReadFile(filepath.Join(dataDir, pidFile))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
	if perr != nil {
		pid = -1 // held, by a daemon that left no pid
	}
	return pid, nil
}

// WritePid records this daemon as the holder of dataDir (after it has
// opened the store, whose lock is the real claim).
func WritePid(dataDir string) error {
	tmp := filepath.Join(dataDir, pidFile+".tmp")
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, strconv.Itoa(os.Getpid())+"\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dataDir, pidFile))
}
