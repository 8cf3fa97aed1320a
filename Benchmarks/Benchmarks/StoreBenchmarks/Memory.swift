import Benchmark
import Statecraft

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: g: memory per subscriber

func memoryBenchmarks() {
  Benchmark(
    "g: allocations per subscriber, 1,000 subscribers",
    configuration: .init(
      metrics: [.mallocCountTotal, .mallocBytesCount, .mallocFreeDelta, .memoryLeakedBytes],
      scalingFactor: .kilo)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<1_000).map { _ in CountingView<Int>() }
      benchmark.startMeasurement()
      for view in views {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.stopMeasurement()
      blackHole(views)
    }
  }

  Benchmark(
    "g: allocations per subscriber, the last 1,000 of 100,000",
    configuration: .init(
      metrics: [.mallocCountTotal, .mallocBytesCount, .mallocFreeDelta, .memoryLeakedBytes],
      scalingFactor: .kilo, maxIterations: 10)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<100_000).map { _ in CountingView<Int>() }
      for view in views.dropLast(1_000) {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.startMeasurement()
      for view in views.suffix(1_000) {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.stopMeasurement()
      blackHole(views)
    }
  }

  // The time of a subscribe among many: the registry's cost per subscriber as it grows.
  Benchmark(
    "g: subscribe, the last 1,000 of 100,000",
    configuration: .init(
      metrics: [.wallClock], timeUnits: .nanoseconds, scalingFactor: .kilo, maxIterations: 5)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<100_000).map { _ in CountingView<Int>() }
      for view in views.dropLast(1_000) {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.startMeasurement()
      for view in views.suffix(1_000) {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.stopMeasurement()
      blackHole(views)
    }
  }

  // What a scope costs before anyone subscribes to it: its `Store`, its engine, which forwards to
  // the root's, and its thunk runner (issue 28: at most 1 KB).
  Benchmark(
    "g: allocations per scope, 1,000 scopes without subscribers",
    configuration: .init(
      metrics: [.mallocCountTotal, .mallocBytesCount, .mallocFreeDelta],
      scalingFactor: .kilo)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let root = fieldsStore()
      var scopes: [Store<Int>] = []
      scopes.reserveCapacity(1_000)
      benchmark.startMeasurement()
      for _ in 0..<1_000 {
        scopes.append(root.scope(\.version))
      }
      benchmark.stopMeasurement()
      blackHole(scopes)
    }
  }

  // What a store costs before anyone subscribes: its engine (six atomic words in one
  // allocation, four locks).
  Benchmark(
    "g: allocations per store, 1,000 stores without subscribers",
    configuration: .init(
      metrics: [.mallocCountTotal, .mallocBytesCount, .mallocFreeDelta, .memoryLeakedBytes],
      scalingFactor: .kilo)
  ) { benchmark in
    var stores: [Store<Int>] = []
    stores.reserveCapacity(1_000)
    benchmark.startMeasurement()
    for _ in 0..<1_000 {
      stores.append(Store<Int>(reducer: counterReducer, state: 0))
    }
    benchmark.stopMeasurement()
    blackHole(stores)
  }

  // Resident memory, as ReSwift's 654 B a subscriber was measured (issue 3): the process's
  // resident set before and after 100,000 subscribes, the subscriber objects created before.
  // Includes what the allocator keeps beyond the requested bytes that the rows above count.
  // One iteration and no warm-up: a later one would reuse the memory the first one freed.
  Benchmark(
    "g: resident memory per subscriber, 100,000 subscribers",
    configuration: .init(metrics: [residentBytes], warmupIterations: 0, maxIterations: 1)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<100_000).map { _ in CountingView<Int>() }
      let before = residentMemory()
      for view in views {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.measurement(residentBytes, (residentMemory() - before) / views.count)
      blackHole(views)
    }
  }
  Benchmark(
    "g: resident memory per closure subscription (token), 100,000 subscriptions",
    configuration: .init(metrics: [residentBytes], warmupIterations: 0, maxIterations: 1)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      // Written before the measurement, so that its pages are resident already.
      var tokens = [SubscriptionToken?](repeating: nil, count: 100_000)
      let before = residentMemory()
      for index in tokens.indices {
        tokens[index] = store.subscribe({ $0.select(\.version) }, receive: { _ in })
      }
      benchmark.measurement(residentBytes, (residentMemory() - before) / tokens.count)
      blackHole(tokens)
    }
  }
}

/// Resident bytes per subscriber: the g rows' metric, for Statecraft and for ReSwift.
let residentBytes = BenchmarkMetric.custom(
  "resident bytes per subscriber", polarity: .prefersSmaller, useScalingFactor: false)

/// The process's resident set, in bytes.
func residentMemory() -> Int {
  #if canImport(Darwin)
    var info = mach_task_basic_info()
    var count = mach_msg_type_number_t(
      MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
    let result = withUnsafeMutablePointer(to: &info) {
      $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
        task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
      }
    }
    require(result == KERN_SUCCESS)
    return Int(info.resident_size)
  #else
    // /proc/self/statm: sizes in pages, the resident set second.
    let descriptor = open("/proc/self/statm", O_RDONLY)
    require(descriptor >= 0)
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(descriptor, &buffer, buffer.count)
    require(count > 0)
    let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else {
      fatalError("/proc/self/statm: unexpected contents")
    }
    return pages * sysconf(Int32(_SC_PAGESIZE))
  #endif
}
