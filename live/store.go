package live

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Store is the controller's durable state. bbolt: pure Go (no cgo, so the
// one static binary stays), a single file in the data directory, and
// serializable transactions that are fsynced on commit, which is what
// "written before it is acted on" needs.
type Store struct {
	db *bolt.DB
	// fault, set by tests, is asked before every write transaction; its
	// error fails the write as a full disk would. The daemon-level tests
	// fill a real filesystem instead.
	fault func() error
}

func (s *Store) update(fn func(*bolt.Tx) error) error {
	if s.fault != nil {
		if err := s.fault(); err != nil {
			return err
		}
	}
	return s.db.Update(fn)
}

var (
	bucketJobs   = []byte("jobs")
	bucketEvents = []byte("events")
	bucketMeta   = []byte("meta")
)

// Event is one entry of a job's history: a state change or a decision,
// with its reason.
type Event struct {
	Time   float64 `json:"time"` // controller seconds (see Controller.epoch)
	Job    string  `json:"job"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail,omitempty"`
	Policy string  `json:"policy,omitempty"` // the policy in force (Config.PolicyID)
	// At is Time on the wall clock, filled in where events are shown
	// (describe, the history); not stored.
	At *time.Time `json:"at,omitempty"`
}

// metaSeq is the highest job sequence number ever written: ids are not
// given again once retention has deleted the jobs that had them.
const metaSeq = "seq"

// OpenStore opens (or creates) the store file.
func OpenStore(path string) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2e9})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketJobs, bucketEvents, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("init store %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the store file.
func (s *Store) Close() error { return s.db.Close() }

// Save writes jobs and events in one transaction.
func (s *Store) Save(jobs []*Job, events []Event) error {
	return s.update(func(tx *bolt.Tx) error {
		jb := tx.Bucket(bucketJobs)
		hwm, _ := strconv.ParseInt(string(tx.Bucket(bucketMeta).Get([]byte(metaSeq))), 10, 64)
		top := hwm
		for _, j := range jobs {
			top = max(top, j.Seq)
			data, err := json.Marshal(j)
			if err != nil {
				return err
			}
			if err := jb.Put(jobKey(j.Seq), data); err != nil {
				return err
			}
		}
		if top > hwm {
			if err := tx.Bucket(bucketMeta).Put([]byte(metaSeq), strconv.AppendInt(nil, top, 10)); err != nil {
				return err
			}
		}
		eb := tx.Bucket(bucketEvents)
		for _, e := range events {
			n, err := eb.NextSequence()
			if err != nil {
				return err
			}
			data, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if err := eb.Put(binary.BigEndian.AppendUint64(nil, n), data); err != nil {
				return err
			}
		}
		return nil
	})
}

// Delete removes jobs and their events in one transaction (retention).
func (s *Store) Delete(jobs []*Job) error {
	ids := map[string]bool{}
	return s.update(func(tx *bolt.Tx) error {
		jb := tx.Bucket(bucketJobs)
		for _, j := range jobs {
			ids[j.ID] = true
			if err := jb.Delete(jobKey(j.Seq)); err != nil {
				return err
			}
		}
		var doomed [][]byte
		err := tx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
			var e Event
			if err := json.Unmarshal(v, &e); err != nil {
				return err
			}
			if ids[e.Job] {
				doomed = append(doomed, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		eb := tx.Bucket(bucketEvents)
		for _, k := range doomed {
			if err := eb.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Backup writes a consistent copy of the store to w while it is in use
// (allot live backup); begin hears the copy's length first.
func (s *Store) Backup(begin func(size int64), w io.Writer) error {
	return s.db.View(func(tx *bolt.Tx) error {
		begin(tx.Size())
		_, err := tx.WriteTo(w)
		return err
	})
}

func jobKey(seq int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(seq)) }

// Jobs reads every job in submission order.
func (s *Store) Jobs() ([]*Job, error) {
	var out []*Job
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).ForEach(func(_, v []byte) error {
			j := &Job{}
			if err := json.Unmarshal(v, j); err != nil {
				return err
			}
			out = append(out, j)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	return out, nil
}

// Events reads a job's history ("" for every job's).
func (s *Store) Events(job string) ([]Event, error) {
	var out []Event
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEvents).ForEach(func(_, v []byte) error {
			var e Event
			if err := json.Unmarshal(v, &e); err != nil {
				return err
			}
			if job == "" || e.Job == job {
				out = append(out, e)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	return out, nil
}

// Meta reads a float setting; ok is false when it was never written.
func (s *Store) Meta(key string) (v float64, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta).Get([]byte(key))
		if b == nil {
			return nil
		}
		v, err = strconv.ParseFloat(string(b), 64)
		ok = err == nil
		return err
	})
	return v, ok, err
}

// SetMeta writes a float setting.
func (s *Store) SetMeta(key string, v float64) error {
	return s.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(key), strconv.AppendFloat(nil, v, 'g', -1, 64))
	})
}
