package presets

import "github.com/allot-sim/allot/policies"

// BatchQuotaShares turns a model into AWS Batch's quota shares: the quota
// engine, idle capacity handed out first come, lent capacity reclaimed
// from any share that borrows it, and never preempting while borrowing.
func BatchQuotaShares(m *policies.Model) {
	m.Kind = policies.KindQuota
	m.IdleFirstCome = true
	m.FairSharing = policies.FairSharing{}
	for i := range m.Queues {
		m.Queues[i].Reclaim = policies.Any
		m.Queues[i].BorrowWithin = policies.Never
	}
}

// HardReservations holds each team to its quota as a reservation nobody
// else may use (fifo and priority before fair share): every quota lends
// nothing; capacity outside every reservation stays first come.
func HardReservations(m *policies.Model) {
	m.Reservations = true
	for i := range m.Queues {
		for gi := range m.Queues[i].Groups {
			for fi := range m.Queues[i].Groups[gi].Flavors {
				qs := m.Queues[i].Groups[gi].Flavors[fi].Quotas
				for r, q := range qs {
					q.HasLend, q.LendLimit = true, 0
					qs[r] = q
				}
			}
		}
	}
}
