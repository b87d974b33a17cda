package kube

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
)

// Recorder makes the event recorder the controller reports through.
func Recorder(cs kubernetes.Interface) (record.EventRecorder, func()) {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	return b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "allot"}), b.Shutdown
}

// Options tune Run.
type Options struct {
	Identity string        // this replica's name in the leader Lease (default: hostname and pid)
	Resync   time.Duration // sync at least this often (default 30s)
	Log      io.Writer     // what it does, one line each (nil: nothing)
}

// Leading says whether this replica holds the leader Lease and acts; the
// others are standbys (not ready, so a Service sends users to the leader).
func (c *Controller) Leading() bool { return c.leading.Load() }

// Run syncs whenever a Job, Pod, Node or the policy ConfigMap changes,
// when a sync asked to be woken, and every Resync, while this replica
// holds the leader Lease (Namespace/allot-controller); it returns when
// ctx ends.
func (c *Controller) Run(ctx context.Context, o Options) error {
	if o.Identity == "" {
		host, _ := os.Hostname()
		o.Identity = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if o.Resync <= 0 {
		o.Resync = 30 * time.Second
	}
	logf := func(f string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, f+"\n", a...)
		}
	}
	lock := &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: "allot-controller"},
		Client: c.Client.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: o.Identity}}
	lead := make(chan struct{})
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		ReleaseOnCancel: true, Name: "allot-controller",
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { c.leading.Store(true); close(lead) },
			OnStoppedLeading: func() { c.leading.Store(false); logf("allot: not leading") },
		},
	})
	if err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { le.Run(lctx); close(done) }()
	select {
	case <-ctx.Done():
		<-done
		return nil
	case <-done:
		return fmt.Errorf("leader election ended before it led")
	case <-lead:
	}
	logf("allot: leading as %s", o.Identity)

	kick := make(chan struct{}, 1)
	poke := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	h := cache.ResourceEventHandlerFuncs{AddFunc: func(any) { poke() }, UpdateFunc: func(any, any) { poke() }, DeleteFunc: func(any) { poke() }}
	all := informers.NewSharedInformerFactory(c.Client, 0)
	// Pods of Jobs only; its own ConfigMap only, by name (all its role
	// lets it list).
	pods := informers.NewSharedInformerFactoryWithOptions(c.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = batchv1.ControllerUidLabel }))
	cms := informers.NewSharedInformerFactoryWithOptions(c.Client, 0, informers.WithNamespace(c.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + c.ConfigMap }))
	cc := &cached{nodes: all.Core().V1().Nodes().Lister(), jobs: all.Batch().V1().Jobs().Lister(),
		pods: pods.Core().V1().Pods().Lister(), cms: cms.Core().V1().ConfigMaps().Lister().ConfigMaps(c.Namespace),
		ranges: all.Core().V1().LimitRanges().Lister(), wrote: map[types.UID]*batchv1.Job{}}
	for _, inf := range []cache.SharedIndexInformer{all.Batch().V1().Jobs().Informer(), all.Core().V1().Nodes().Informer(),
		all.Core().V1().LimitRanges().Informer(), pods.Core().V1().Pods().Informer(), cms.Core().V1().ConfigMaps().Informer()} {
		if _, err := inf.AddEventHandler(h); err != nil {
			return err
		}
	}
	for _, f := range []informers.SharedInformerFactory{all, pods, cms} {
		f.Start(lctx.Done())
		defer f.Shutdown()
	}
	for _, f := range []informers.SharedInformerFactory{all, pods, cms} {
		for typ, ok := range f.WaitForCacheSync(lctx.Done()) {
			if !ok && lctx.Err() == nil {
				return fmt.Errorf("informer cache of %v did not sync", typ)
			}
		}
	}
	c.cache = cc
	c.kept = usageState{} // read again: another leader may have written it
	defer func() { c.cache = nil }()

	next := time.Time{}
	for {
		wait := o.Resync
		if !next.IsZero() {
			wait = min(wait, max(time.Until(next), time.Millisecond))
		}
		select {
		case <-lctx.Done():
			<-done
			return nil
		case <-done:
			if ctx.Err() != nil {
				return nil // asked to stop
			}
			return fmt.Errorf("lost the leader lease") // another replica acts now
		case <-kick:
			time.Sleep(20 * time.Millisecond) // let a burst of changes land together
		case <-time.After(wait):
		}
		if next, err = c.Sync(lctx); err != nil {
			logf("allot: sync: %v", err)
			next = time.Now().Add(time.Second)
		}
	}
}

// NewClient is a client for the controller: client-go's default of 5
// requests a second (burst 10) would cap admissions at about 2 a second,
// each being a patch, a status patch and an Event.
func NewClient(cfg *rest.Config) (kubernetes.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 200, 400
	}
	return kubernetes.NewForConfig(cfg)
}
