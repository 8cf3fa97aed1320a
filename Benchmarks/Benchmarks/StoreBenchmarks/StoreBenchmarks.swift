import Benchmark
import Statecraft

// The workloads of issues 3, 6, 17 and 31, each next to a baseline measured in the same run, one file
// per group. Names start with the workload's letter so that `--filter` can pick them. The
// benchmarks named "gate" count the allocations of 10,000 dispatches, unscaled; `.ci/run` checks
// them against Thresholds/.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .nanoseconds,
    warmupIterations: 2,
    maxDuration: .seconds(2),
    maxIterations: 1_000
  )
  dispatchBenchmarks()
  gateBenchmarks()
  subscriberBenchmarks()
  middlewareBenchmarks()
  largeStateBenchmarks()
  memoryBenchmarks()
  thunkBenchmarks()
  compositionBenchmarks()
  engineBenchmarks()
  persistenceBenchmarks()
  inspectorBenchmarks()
  entityBenchmarks()
  #if STATECRAFT_RESWIFT
    reSwiftBenchmarks()
  #endif
}
