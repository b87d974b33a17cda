package kube

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
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
	for _, inf := range []cache.SharedIndexInformer{all.Batch().V1().Jobs().Informer(), all.Core().V1().Pods().Informer(), all.Core().V1().Nodes().Informer()} {
		if _, err := inf.AddEventHandler(h); err != nil {
			return err
		}
	}
	// Its own ConfigMap only, by name: all its role lets it list.
	cms := informers.NewSharedInformerFactoryWithOptions(c.Client, 0, informers.WithNamespace(c.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + c.ConfigMap }))
	if _, err := cms.Core().V1().ConfigMaps().Informer().AddEventHandler(h); err != nil {
		return err
	}
	all.Start(lctx.Done())
	cms.Start(lctx.Done())
	defer all.Shutdown()
	defer cms.Shutdown()

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
