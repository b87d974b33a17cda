package live

// Remover is a backend that keeps files of its own for a job (logs,
// checkpoints), which retention deletes with the job's history.
type Remover interface {
	Remove(id string) error
}

// prune deletes the jobs that ended more than the retention ago: their
// history from the store, then their files. Ids are not given again.
func (c *Controller) prune(now float64) {
	cut := c.wall(now).Add(-c.opts.Retention)
	var old []*Job
	kept := c.jobs[:0:0]
	for _, r := range c.jobs {
		if j := r.j; j.Final() && j.Ended != nil && j.Ended.Before(cut) {
			old = append(old, j)
			continue
		}
		kept = append(kept, r)
	}
	if len(old) == 0 {
		return
	}
	if err := c.store.Delete(old); err != nil {
		c.log.Error("retention: store", "err", err)
		return
	}
	c.version++
	c.jobs = kept
	rm, _ := c.be.(Remover)
	for _, j := range old {
		delete(c.byID, j.ID)
		if j.RequestID != "" {
			delete(c.byReq, requestKey(j.UID, j.RequestID))
		}
		if rm != nil {
			if err := rm.Remove(j.ID); err != nil {
				c.log.Error("retention: files", "job", j.ID, "err", err)
			}
		}
	}
	c.log.Info("retention: removed finished jobs", "jobs", len(old), "ended_before", cut)
}
