package kube

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/allot-sim/allot/policies"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Admission fair sharing (usage_half_life) orders a team's jobs by how
// much their user consumed lately, finished jobs included: the cluster
// garbage-collects those, and the core is rebuilt at every sync, so the
// consumption is kept in the API server, in the ConfigMap UsageConfigMap
// of the controller's namespace (as Kueue keeps it in LocalQueue status).
const (
	UsageConfigMap = "allot-usage"
	UsageKey       = "usage.json"
	LabelUser      = "scheduling.allot.dev/user" // the job's user for admission fair sharing (default: its namespace)
	// usageEvery is how often the usage is written at least: the
	// consumption between two writes of a job that finishes is what a
	// restart loses.
	usageEvery = time.Minute
)

// usageDoc is the usage ConfigMap's usage.json: each team's users'
// decayed consumption, in accelerators, as it was at At.
type usageDoc struct {
	At    time.Time                     `json:"at"`
	Teams map[string]map[string]float64 `json:"teams"`
}

// usageState is the controller's copy of the usage ConfigMap.
type usageState struct {
	loaded  bool
	doc     usageDoc
	rv      string    // the ConfigMap's resourceVersion ("": there is none)
	written string    // the admitted jobs at the last write (or attempt)
	tried   time.Time // the last write or attempt
	failed  string    // the last write's error, reported once
}

// users numbers each team's users for one sync's core.
type users struct {
	ids   []map[string]int
	names [][]string
}

func newUsers(teams int) *users {
	return &users{ids: make([]map[string]int, teams), names: make([][]string, teams)}
}

func (u *users) id(team int, name string) int {
	if u.ids[team] == nil {
		u.ids[team] = map[string]int{}
	}
	if i, ok := u.ids[team][name]; ok {
		return i
	}
	u.ids[team][name] = len(u.names[team])
	u.names[team] = append(u.names[team], name)
	return len(u.names[team]) - 1
}

// userOf is the job's user: its user label, else its namespace.
func userOf(j *batchv1.Job) string {
	if u := j.Labels[LabelUser]; u != "" {
		return u
	}
	return j.Namespace
}

// loadUsage reads the usage ConfigMap once per leadership.
func (c *Controller) loadUsage(ctx context.Context) {
	if c.kept.loaded {
		return
	}
	cm, err := c.Client.CoreV1().ConfigMaps(c.Namespace).Get(ctx, UsageConfigMap, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		c.kept = usageState{loaded: true, failed: c.kept.failed}
		return
	case err != nil:
		return // tried again next sync
	}
	c.kept = usageState{loaded: true, rv: cm.ResourceVersion, failed: c.kept.failed}
	if data := cm.Data[UsageKey]; data != "" {
		if err := json.Unmarshal([]byte(data), &c.kept.doc); err != nil {
			c.Events.Eventf(cm, corev1.EventTypeWarning, "BadUsage", "%s: %v: starting from no usage", UsageKey, err)
			c.kept.doc = usageDoc{}
		}
	}
}

// restoreUsage gives the kept consumption to the sync's core.
func (c *Controller) restoreUsage(core *policies.Core, us *users, at func(time.Time) float64) error {
	for q, team := range c.cfg.Teams {
		names := make([]string, 0, len(c.kept.doc.Teams[team]))
		for name := range c.kept.doc.Teams[team] {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if err := core.RestoreUserUsage(q, us.id(q, name), c.kept.doc.Teams[team][name], at(c.kept.doc.At)); err != nil {
				return err
			}
		}
	}
	return nil
}

// keepUsage writes the core's consumption when the admitted jobs changed
// or usageEvery passed; admitted names them.
func (c *Controller) keepUsage(ctx context.Context, core *policies.Core, us *users, now time.Time, at float64, admitted []string) {
	slices.Sort(admitted)
	key := strings.Join(admitted, " ")
	if key == c.kept.written && now.Sub(c.kept.tried) < usageEvery {
		return
	}
	c.kept.written, c.kept.tried = key, now // a failing write is not retried every sync
	doc := usageDoc{At: now.UTC(), Teams: map[string]map[string]float64{}}
	for _, u := range core.UserUsages(at) {
		if u.Consumed < 1e-9 {
			continue // faded away
		}
		team := c.cfg.Teams[u.Queue]
		if doc.Teams[team] == nil {
			doc.Teams[team] = map[string]float64{}
		}
		doc.Teams[team][us.names[u.Queue][u.User]] = math.Round(u.Consumed*1e6) / 1e6
	}
	data, _ := json.MarshalIndent(doc, "", "  ")
	cms := c.Client.CoreV1().ConfigMaps(c.Namespace)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: UsageConfigMap, Namespace: c.Namespace, ResourceVersion: c.kept.rv},
		Data: map[string]string{UsageKey: string(data)}}
	var made *corev1.ConfigMap
	var err error
	if c.kept.rv == "" {
		made, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	} else {
		made, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		c.kept.loaded = false // changed meanwhile (another leader, an administrator): read it again
		return
	}
	if err != nil {
		if msg := err.Error(); msg != c.kept.failed {
			// Once per failure: without the ConfigMap (deploy/usage.yaml) a
			// restart forgets finished jobs' consumption.
			c.kept.failed = msg
			c.Events.Eventf(cm, corev1.EventTypeWarning, "UsageNotKept", "%s/%s: %v", c.Namespace, UsageConfigMap, err)
		}
		return
	}
	c.kept = usageState{loaded: true, doc: doc, rv: made.ResourceVersion, written: key, tried: now}
}
