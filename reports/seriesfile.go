package reports

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// SeriesRow is one row of timeseries.parquet. Values are averages over the
// bucket. A row names an instance type and a team; an empty instance type
// means the team as a whole, an empty team the type as a whole, both empty
// the fleet.
type SeriesRow struct {
	BucketStart   float64 `parquet:"bucket_start_s"`
	BucketEnd     float64 `parquet:"bucket_end_s"`
	InstanceType  string  `parquet:"instance_type"`
	Team          string  `parquet:"team"`
	Installed     float64 `parquet:"installed"`      // type and fleet rows
	Allocated     float64 `parquet:"allocated"`      // all rows
	Borrowed      float64 `parquet:"borrowed"`       // type×team rows
	Lent          float64 `parquet:"lent"`           // type×team rows
	Quota         float64 `parquet:"quota"`          // type×team rows
	PendingJobs   float64 `parquet:"pending_jobs"`   // team and fleet rows
	RunningJobs   float64 `parquet:"running_jobs"`   // team and fleet rows
	PendingDemand float64 `parquet:"pending_demand"` // team and fleet rows, accelerators
	Preemptions   float64 `parquet:"preemptions"`    // fleet rows, count in the bucket
	LostAccHours  float64 `parquet:"lost_accelerator_hours"`
	Goodput       float64 `parquet:"goodput"` // fleet rows, accelerators of kept progress
	PricePerNodeH float64 `parquet:"price_per_node_hour"`
	PerNode       float64 `parquet:"accelerators_per_node"`
}

// WriteSeries writes a run's time series.
func WriteSeries(path string, d *RunData) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[SeriesRow](f, parquet.Compression(&parquet.Zstd))
	var rows []SeriesRow
	for k := range d.Start {
		base := SeriesRow{BucketStart: d.Start[k], BucketEnd: d.End[k]}
		fleet := base
		for t, ty := range d.Types {
			tr := base
			tr.InstanceType, tr.Installed, tr.PricePerNodeH, tr.PerNode = ty, d.Installed[t][k], d.Price[t], d.PerNode[t]
			for m, tm := range d.Teams {
				r := base
				r.InstanceType, r.Team = ty, tm
				r.Allocated, r.Borrowed, r.Lent, r.Quota = d.Allocated[t][m][k], d.Borrowed[t][m][k], d.Lent[t][m][k], d.Quota[t][m][k]
				tr.Allocated += r.Allocated
				rows = append(rows, r)
			}
			fleet.Installed += tr.Installed
			fleet.Allocated += tr.Allocated
			rows = append(rows, tr)
		}
		for m, tm := range d.Teams {
			r := base
			r.Team, r.PendingJobs, r.RunningJobs, r.PendingDemand = tm, d.Pending[m][k], d.Running[m][k], d.Demand[m][k]
			for t := range d.Types {
				r.Allocated += d.Allocated[t][m][k]
			}
			fleet.PendingJobs += r.PendingJobs
			fleet.RunningJobs += r.RunningJobs
			fleet.PendingDemand += r.PendingDemand
			rows = append(rows, r)
		}
		fleet.Preemptions, fleet.LostAccHours, fleet.Goodput = d.Preempts[k], d.LostAccH[k], d.Goodput[k]
		rows = append(rows, fleet)
		if len(rows) > 8192 {
			if _, err := w.Write(rows); err != nil {
				f.Close()
				return err
			}
			rows = rows[:0]
		}
	}
	if _, err := w.Write(rows); err != nil {
		f.Close()
		return err
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadSeries reads timeseries.parquet back into the series of a RunData.
func ReadSeries(path string) (*RunData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := parquet.NewGenericReader[SeriesRow](f)
	defer r.Close()
	var all []SeriesRow
	buf := make([]SeriesRow, 4096)
	for {
		n, err := r.Read(buf)
		all = append(all, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	d := &RunData{}
	typeIdx, teamIdx, bucketIdx := map[string]int{}, map[string]int{}, map[float64]int{}
	for _, x := range all {
		if _, ok := bucketIdx[x.BucketStart]; !ok {
			bucketIdx[x.BucketStart] = len(d.Start)
			d.Start, d.End = append(d.Start, x.BucketStart), append(d.End, x.BucketEnd)
		}
		if x.InstanceType != "" {
			if _, ok := typeIdx[x.InstanceType]; !ok {
				typeIdx[x.InstanceType] = len(d.Types)
				d.Types = append(d.Types, x.InstanceType)
				d.Price, d.PerNode = append(d.Price, x.PricePerNodeH), append(d.PerNode, x.PerNode)
			}
		}
		if x.Team != "" {
			if _, ok := teamIdx[x.Team]; !ok {
				teamIdx[x.Team] = len(d.Teams)
				d.Teams = append(d.Teams, x.Team)
			}
		}
	}
	nB, nT, nM := len(d.Start), len(d.Types), len(d.Teams)
	grid := func() [][]float64 {
		g := make([][]float64, nM)
		for m := range g {
			g[m] = make([]float64, nB)
		}
		return g
	}
	for t := 0; t < nT; t++ {
		d.Installed = append(d.Installed, make([]float64, nB))
		d.Allocated, d.Borrowed, d.Lent, d.Quota = append(d.Allocated, grid()), append(d.Borrowed, grid()), append(d.Lent, grid()), append(d.Quota, grid())
	}
	d.Pending, d.Running, d.Demand = grid(), grid(), grid()
	d.Preempts, d.LostAccH, d.Goodput = make([]float64, nB), make([]float64, nB), make([]float64, nB)
	for _, x := range all {
		k := bucketIdx[x.BucketStart]
		t, hasT := typeIdx[x.InstanceType]
		m, hasM := teamIdx[x.Team]
		switch {
		case hasT && hasM:
			d.Allocated[t][m][k], d.Borrowed[t][m][k], d.Lent[t][m][k], d.Quota[t][m][k] = x.Allocated, x.Borrowed, x.Lent, x.Quota
		case hasT:
			d.Installed[t][k] = x.Installed
			d.Price[t], d.PerNode[t] = x.PricePerNodeH, x.PerNode
		case hasM:
			d.Pending[m][k], d.Running[m][k], d.Demand[m][k] = x.PendingJobs, x.RunningJobs, x.PendingDemand
		default:
			d.Preempts[k], d.LostAccH[k], d.Goodput[k] = x.Preemptions, x.LostAccHours, x.Goodput
		}
	}
	return d, nil
}
