# Writes the cycle benchmark snapshot: 100 teams in one cohort over 3
# instance types, 2,000 running and 10,000 pending jobs (fair=1 turns fair
# sharing on). The same state as policies' BenchmarkCycle10kPending2kRunning100Teams.
BEGIN {
  split("1 2 4 8 16 32", size, " ")
  print "id: cycle-10k-pending" (fair ? "-fair" : "")
  print "title: One scheduling cycle on 10,000 pending and 2,000 running jobs of 100 teams"
  print "kind: cycle"
  if (fair) print "settings: {fair_sharing: {strategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}}"
  print "flavors: [type-0, type-1, type-2]"
  print "queues:"
  for (q = 0; q < 100; q++) {
    printf "  - name: team-%03d\n    cohort: org\n", q
    print "    preemption: {within_queue: LowerPriority, reclaim_within_cohort: Any}"
    print "    fungibility: {when_can_borrow: TryNextFlavor}"
    print "    resource_groups:"
    print "      - flavors:"
    for (f = 0; f < 3; f++) printf "          - {flavor: type-%d, resources: {nvidia.com/gpu: {nominal: 160}}}\n", f
  }
  seq = 0
  print "running:"
  for (i = 0; i < 2000; i++) {
    seq++
    printf "  - {name: j%d, queue: team-%03d, priority: %d, created: %d, admitted: %d, podsets: [{name: main, count: 1, per_pod: {nvidia.com/gpu: %d}, flavors: {nvidia.com/gpu: type-%d}}]}\n", seq, i % 100, i % 3, seq, i, size[i % 6 + 1], int(i / 100) % 3
  }
  print "pending:"
  for (i = 0; i < 10000; i++) {
    seq++
    printf "  - {name: j%d, queue: team-%03d, priority: %d, created: %d, podsets: [{name: main, count: 1, per_pod: {nvidia.com/gpu: %d}}]}\n", seq, (i * 7) % 100, i % 3, seq, size[(i * 5) % 6 + 1]
  }
}
