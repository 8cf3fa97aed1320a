import Benchmark
import Dispatch
import Foundation
import Statecraft
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: Issue 17: the engine under the load apps put on it

func engineBenchmarks() {
  backgroundBurstBenchmarks()
  mainThreadBenchmarks()
  contentionBenchmarks()
}

/// l: a background thread dispatches while the main queue is blocked; one subscriber selects one
/// element; the in-place reducer changes one element of an array of `count`.
private func backgroundBurstBenchmarks() {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount, .peakMemoryResidentDelta],
    timeUnits: .nanoseconds, warmupIterations: 1, scalingFactor: .kilo, maxDuration: .seconds(2),
    maxIterations: 20)
  Benchmark("l baseline: the same reducer under a mutex, 100000 elements", configuration: .kilo) {
    benchmark in
    let state = Mutex(LargeState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      state.withLock {
        largeInPlaceReducer(state: &$0, action: SetItem(index: iteration % 100_000, value: 1))
      }
    }
    benchmark.stopMeasurement()
  }
  for count in [10_000, 100_000, 1_000_000] {
    Benchmark(
      "l: background burst, main queue blocked, 1 subscriber, \(count) elements",
      configuration: configuration
    ) { benchmark in
      let (store, view) = await burstStore(count: count)
      let blocker = MainQueueBlocker()
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetItem(index: iteration % count, value: iteration + 1))
      }
      benchmark.stopMeasurement()
      blocker.release()
      await requireDelivery(of: store.state.items[0], to: view)
    }
  }
  // The same with the main queue free, so that rounds run during the burst (at most one a
  // millisecond, C7), each running its selectors under the state lock (C13). Not one of issue
  // 17's targets; it shows what a free main queue costs a burst into a large state.
  for (count, subscribers) in [(10_000, 1), (1_000_000, 1), (10_000, 100)] {
    let name = subscribers == 1 ? "1 subscriber" : "\(subscribers) subscribers"
    Benchmark(
      "l: background burst, main queue free, \(name), \(count) elements",
      configuration: configuration
    ) { benchmark in
      let (store, view) = await burstStore(count: count, subscribers: subscribers)
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetItem(index: iteration % count, value: iteration + 1))
      }
      benchmark.stopMeasurement()
      await requireDelivery(of: store.state.items[0], to: view)
    }
  }
  // A selector that reads the whole state, as a filter over a large array without a
  // `MemoizedSelector` does: it runs under the state lock (C13), so each round holds the
  // dispatching thread up for as long as it takes (about 0.3 ms here, once a millisecond, C7).
  // Bursts of a million, so that each spans many rounds.
  Benchmark(
    "l: background burst, main queue free, 1 subscriber summing all 1000000 elements",
    configuration: .init(
      metrics: [.wallClock], timeUnits: .nanoseconds, warmupIterations: 1, scalingFactor: .mega,
      maxDuration: .seconds(3), maxIterations: 10)
  ) { benchmark in
    let (store, view) = await burstStore(count: 1_000_000, selectingSum: true)
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration % 1_000_000, value: iteration + 1))
    }
    benchmark.stopMeasurement()
    await requireDelivery(of: store.state.items.reduce(0, &+), to: view)
  }
  Benchmark(
    "gate_l_background_burst",
    configuration: .init(
      metrics: [.mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(1),
      maxIterations: 20)
  ) { benchmark in
    let (store, view) = await burstStore(count: 100_000)
    let blocker = MainQueueBlocker()
    // Posts the one round the burst waits for, behind the blocker: with the blocker second, the
    // round could run in between and the burst post the next one, whose allocations (a timer's,
    // when it comes within a millisecond of the first, C7) this gate would count.
    store.dispatch(SetItem(index: 0, value: 1))
    benchmark.startMeasurement()
    for iteration in 0..<10_000 { store.dispatch(SetItem(index: iteration, value: iteration)) }
    benchmark.stopMeasurement()
    blocker.release()
    await requireDelivery(of: store.state.items[0], to: view)
  }
}

/// m: a dispatch on the main thread with 1 and with 10 subscribers, each selecting one field,
/// one of them changed.
private func mainThreadBenchmarks() {
  for subscribers in [1, 10] {
    for gate in [false, true] {
      let name =
        gate
        ? "gate_m_main_thread_\(subscribers)_subscribers"
        : "m: dispatch on the main thread, \(subscribers) subscribers, one field changes"
      let configuration: Benchmark.Configuration =
        gate
        ? .init(
          metrics: [.mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(1),
          maxIterations: 20)
        : .kilo
      Benchmark(name, configuration: configuration) { benchmark in
        await onMainActor(benchmark) { benchmark in
          let store = fieldsStore()
          let views = (0..<subscribers).map { index in
            let view = CountingView<Int>()
            store.subscribe(view) { $0.select { $0.values[index] } }
            return view
          }
          let iterations = gate ? 0..<10_000 : benchmark.scaledIterations
          benchmark.startMeasurement()
          for _ in iterations { store.dispatch(SetField(index: 0)) }
          benchmark.stopMeasurement()
          require(views[0].received == 1 + iterations.count)
          require(views.dropFirst().allSatisfy { $0.received == 1 })
        }
      }
    }
  }
}

/// n: 4 threads dispatch 10,000 actions each, with one subscriber on the main queue, against a
/// bare mutex around the same reducer, the threads started together so that they contend.
private func contentionBenchmarks() {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 1,
    maxDuration: .seconds(3), maxIterations: 50)
  Benchmark(
    "n baseline: 4 threads × 10,000 reducer calls under one pthread mutex",
    configuration: configuration
  ) { benchmark in
    // The platform mutex, which the store takes too; Synchronization.Mutex spins in user space
    // first and is not a lock the store can use (Docs/ConcurrencyModel.md).
    let state = PlatformMutex(0)
    onThreads(4, measuring: benchmark) {
      for _ in 0..<10_000 {
        state.withLock { $0 = counterReducer(action: Tick(), state: $0) }
      }
    }
    require(state.withLock { $0 } == 40_000)
  }
  Benchmark("n: 4 threads × 10,000 dispatches, 1 subscriber", configuration: configuration) {
    benchmark in
    let store = Store<Int>(reducer: counterReducer, state: 0)
    let view = await MainActor.run {
      let view = LatestView()
      store.subscribe(view)
      return view
    }
    onThreads(4, measuring: benchmark) {
      for _ in 0..<10_000 { store.dispatch(Tick()) }
    }
    require(store.state == 40_000)
    await requireDelivery(of: 40_000, to: view)
  }
}

/// Runs `body` on `count` new threads at once, measuring until all have returned.
///
/// The measurement starts when all of them are ready. `DispatchQueue.concurrentPerform` was not
/// enough: on 2 cores it often ran the iterations on the calling thread before a worker woke, so
/// n measured one thread.
private func onThreads(
  _ count: Int, measuring benchmark: Benchmark, _ body: @escaping @Sendable () -> Void
) {
  let start = StartLine()
  let finished = DispatchSemaphore(value: 0)
  for _ in 0..<count {
    Thread {
      start.ready.add(1, ordering: .releasing)
      while !start.go.load(ordering: .acquiring) { sched_yield() }
      body()
      finished.signal()
    }.start()
  }
  while start.ready.load(ordering: .acquiring) < count { sched_yield() }
  benchmark.startMeasurement()
  start.go.store(true, ordering: .releasing)
  for _ in 0..<count { finished.wait() }
  benchmark.stopMeasurement()
}

private final class StartLine: Sendable {
  let ready = Atomic(0)
  let go = Atomic(false)
}

/// A store of `count` elements with one subscriber selecting the first (or, `selectingSum`, the
/// sum of all), and `subscribers - 1` more selecting the next ones.
private func burstStore(
  count: Int, subscribers: Int = 1, selectingSum: Bool = false
) async -> (Store<LargeState>, LatestView) {
  let store = Store<LargeState>(reducer: largeInPlaceReducer, state: LargeState(count: count))
  let view = await MainActor.run {
    let view = LatestView()
    if selectingSum {
      store.subscribe(view) { $0.select { $0.items.reduce(0, &+) } }
    } else {
      store.subscribe(view) { $0.select { $0.items[0] } }
    }
    for index in 1..<subscribers {
      let other = LatestView()
      store.subscribe(other) { $0.select { $0.items[index] } }
      others.append(other)
    }
    return view
  }
  return (store, view)
}

/// The subscribers `burstStore` adds beside the one it returns, kept for the process.
@MainActor private var others: [LatestView] = []

/// Waits until `view` has received `value`, the newest state.
private func requireDelivery(of value: Int, to view: LatestView) async {
  let deadline = ContinuousClock.now + .seconds(10)
  while await MainActor.run(body: { view.last != value }) {
    require(ContinuousClock.now < deadline)
    await Task.yield()
  }
}

/// Keeps the main queue busy from `init` until `release()`, as an app's main thread is while
/// background work dispatches.
private final class MainQueueBlocker: Sendable {
  private let released = DispatchSemaphore(value: 0)

  init() {
    let blocked = DispatchSemaphore(value: 0)
    DispatchQueue.main.async { [released] in
      blocked.signal()
      released.wait()
    }
    blocked.wait()
  }

  func release() {
    released.signal()
  }
}

/// A subscriber that keeps the last value it received.
private final class LatestView: StoreSubscriber {
  private(set) var last: Int?

  func newState(state: Int) {
    last = state
  }
}

/// A value behind a `pthread_mutex_t`, the lock the store takes on Linux.
private final class PlatformMutex<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is touched only inside `withLock`, which holds `mutex`.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private var value: Value

  init(_ value: Value) {
    self.value = value
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body(&value)
  }
}
