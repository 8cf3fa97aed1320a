import Benchmark
import Foundation
import Statecraft
import StatecraftTools

// MARK: p: the persistence middleware on the dispatch path (issue 13)

/// A 100,000-element state whose items are persisted, written to a temporary folder.
///
/// The debounce is long, so the measurement sees the dispatch path only.
private func persistedStore() -> (Store<LargeState>, StatePersistence<LargeState, [Int]>) {
  let file = FileManager.default.temporaryDirectory
    .appendingPathComponent("statecraft-benchmark-\(UUID().uuidString)")
    .appendingPathComponent("items.json")
  let persistence = StatePersistence<LargeState, [Int]>(
    file: file, debounce: .seconds(60), select: { $0.items })
  let store = Store<LargeState>(
    reducer: largeInPlaceReducer, state: LargeState(count: 100_000),
    middleware: [persistence.middleware()])
  return (store, persistence)
}

/// One persisted store for all iterations, its debounce already started and asleep: the
/// iterations measure the dispatch path only.
private let sharedPersisted: Store<LargeState> = {
  let (store, _) = persistedStore()
  store.dispatch(SetItem(index: 0, value: 0))
  usleep(100_000)  // lets the debounce task start sleeping, which allocates on another thread
  return store
}()

private let passThrough: Middleware<LargeState> = { _, _ in { next in { action in next(action) } } }

func persistenceBenchmarks() {
  restoreBenchmarks()
  Benchmark("p baseline: in-place dispatch, 100000 elements, no middleware", configuration: .kilo) {
    benchmark in
    let store = Store<LargeState>(reducer: largeInPlaceReducer, state: LargeState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration % 100_000, value: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
  }

  Benchmark(
    "p baseline: in-place dispatch, 100000 elements, one pass-through middleware",
    configuration: .kilo
  ) { benchmark in
    let store = Store<LargeState>(
      reducer: largeInPlaceReducer, state: LargeState(count: 100_000), middleware: [passThrough])
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration % 100_000, value: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
  }

  Benchmark("p: in-place dispatch, 100000 elements, persistence middleware", configuration: .kilo) {
    benchmark in
    let store = sharedPersisted
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration % 100_000, value: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
  }

  Benchmark(
    "gate_p_persistence",
    configuration: .init(
      metrics: [.mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(1),
      maxIterations: 20)
  ) { benchmark in
    let (store, persistence) = persistedStore()
    store.dispatch(SetItem(index: 0, value: 0))  // starts the debounce before measuring
    usleep(100_000)  // and lets its task start sleeping, which allocates on another thread
    benchmark.startMeasurement()
    for iteration in 0..<10_000 { store.dispatch(SetItem(index: iteration, value: iteration)) }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
    try? FileManager.default.removeItem(at: persistence.file.deletingLastPathComponent())
  }
}

// MARK: p restore: a large file is parsed once

/// A saved file of 1,000,000 six- and seven-digit integers, about 7.6 MB.
private let largeSave: (file: URL, payload: Data) = {
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("statecraft-benchmark-restore-\(UUID().uuidString)")
  let file = folder.appendingPathComponent("items.json")
  let items = (0..<1_000_000).map { 100_000 + $0 * 7 }
  let persistence = StatePersistence<LargeState, [Int]>(file: file, select: { $0.items })
  try? persistence.save(items)
  return (file, (try? JSONEncoder().encode(items)) ?? Data())
}()

func restoreBenchmarks() {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1,
    maxDuration: .seconds(5), maxIterations: 10)
  Benchmark(
    "p restore baseline: JSONDecoder decodes the same 1,000,000 Ints", configuration: configuration
  ) { benchmark in
    let payload = largeSave.payload
    benchmark.startMeasurement()
    blackHole(try? JSONDecoder().decode([Int].self, from: payload))
  }

  Benchmark("p restore: a 7.6 MB saved file of 1,000,000 Ints", configuration: configuration) {
    benchmark in
    let persistence = StatePersistence<LargeState, [Int]>(
      file: largeSave.file, select: { $0.items })
    benchmark.startMeasurement()
    blackHole(try? persistence.restore().get())
  }
}
