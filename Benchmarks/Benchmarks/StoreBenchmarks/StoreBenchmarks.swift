import Benchmark
import Statecraft

// The workloads of issue 3, each next to a baseline measured in the same run. Names start with
// the workload's letter so that `--filter` can pick them. The benchmarks named "gate" count the
// allocations of 10,000 dispatches, unscaled; `.ci/run` checks them against Thresholds/ (zero).

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
}

// MARK: Issue 6: selectors, scopes, batching

private func compositionBenchmarks() {
  for (name, changesInput) in [("hit", false), ("miss", true)] {
    Benchmark(
      "i: memoized selector \(name), 1,000 subscribers share it", configuration: .kilo
    ) { benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = fieldsStore()
        let total = createSelector(\Fields.values) { $0.reduce(0, &+) }
        let views = (0..<1_000).map { _ in
          let view = CountingView<Int>()
          store.subscribe(view) { $0.select(total) }
          return view
        }
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
          store.dispatch(changesInput ? SetField(index: iteration % 1_000) : SetVersionOnly())
        }
        benchmark.stopMeasurement()
        require(total.recomputations == 1 + (changesInput ? benchmark.scaledIterations.count : 0))
        blackHole(views)
      }
    }
  }

  Benchmark(
    "j baseline: 1,000 subscribers on the root select a slice, dispatch elsewhere",
    configuration: .kilo
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<1_000).map { _ in
        let view = CountingView<[Int]>()
        store.subscribe(view) { $0.select(\.values) }
        return view
      }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations { store.dispatch(SetVersionOnly()) }
      benchmark.stopMeasurement()
      blackHole(views)
    }
  }

  Benchmark("j: a scope with 1,000 subscribers, dispatch elsewhere", configuration: .kilo) {
    benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let scope = store.scope(\.values)
      let views = (0..<1_000).map { _ in
        let view = CountingView<[Int]>()
        scope.subscribe(view)
        return view
      }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations { store.dispatch(SetVersionOnly()) }
      benchmark.stopMeasurement()
      blackHole(views)
    }
  }

  for batched in [false, true] {
    Benchmark(
      "k: 10 actions \(batched ? "in one batch" : "dispatched one by one"), 100 subscribers",
      configuration: .kilo
    ) { benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = fieldsStore()
        let views = (0..<100).map { _ in
          let view = CountingView<Int>()
          store.subscribe(view) { $0.select(\.version) }
          return view
        }
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
          if batched {
            store.batch {
              for offset in 0..<10 { store.dispatch(SetField(index: (iteration + offset) % 1_000)) }
            }
          } else {
            for offset in 0..<10 { store.dispatch(SetField(index: (iteration + offset) % 1_000)) }
          }
        }
        benchmark.stopMeasurement()
        blackHole(views)
      }
    }
  }
}

// MARK: h: thunk round trip

private func thunkBenchmarks() {
  Benchmark("h: thunk round trip, dispatch + await + one action back", configuration: .kilo) {
    benchmark in
    let store = Store<Int>(reducer: counterReducer, state: 0)
    let thunk = Thunk<Int> { context in context.dispatch(Tick()) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      try? await store.dispatch(thunk).value
    }
    benchmark.stopMeasurement()
    require(store.state == benchmark.scaledIterations.count)
  }

  Benchmark("h: AsyncThunk round trip with lifecycle actions", configuration: .kilo) {
    benchmark in
    let store = Store<Int>(reducer: counterReducer, state: 0)
    let thunk = AsyncThunk<Int, Int>("h") { context in
      context.dispatch(Tick())
      return 1
    }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(try? await store.dispatch(thunk).value)
    }
    benchmark.stopMeasurement()
  }
}

// MARK: a, d: dispatch with no subscribers

private func dispatchBenchmarks() {
  Benchmark("a baseline: the reducer called directly", configuration: .kilo) { benchmark in
    var state = 0
    let reducer = opaque(counterReducer)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      state = reducer(Tick(), state)
    }
    blackHole(state)
  }

  Benchmark("a: dispatch, trivial reducer", configuration: .kilo) { benchmark in
    let store = Store<Int>(reducer: counterReducer, state: 0)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      store.dispatch(Tick())
    }
    blackHole(store.state)
  }
}

private func middlewareBenchmarks() {
  Benchmark("d: dispatch through 10 pass-through middlewares", configuration: .kilo) {
    benchmark in
    let passThrough: Middleware<Int> = { _, _ in { next in { action in next(action) } } }
    let store = Store<Int>(
      reducer: counterReducer, state: 0,
      middleware: Array(repeating: passThrough, count: 10))
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      store.dispatch(Tick())
    }
    blackHole(store.state)
  }
}

// MARK: Allocation gates

private func gateBenchmarks() {
  let gate = Benchmark.Configuration(
    metrics: [.mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(1), maxIterations: 20)
  let passThrough: Middleware<Int> = { _, _ in { next in { action in next(action) } } }
  let stores: [(name: String, make: @Sendable () -> Store<Int>)] = [
    ("gate_a_no_middleware", { Store<Int>(reducer: counterReducer, state: 0) }),
    (
      "gate_d_10_middlewares",
      {
        Store<Int>(
          reducer: counterReducer, state: 0,
          middleware: Array(repeating: passThrough, count: 10))
      }
    ),
  ]
  for (name, make) in stores {
    Benchmark(name, configuration: gate) { benchmark in
      let store = make()
      benchmark.startMeasurement()
      for _ in 0..<10_000 { store.dispatch(Tick()) }
      benchmark.stopMeasurement()
      blackHole(store.state)
    }
  }
  let largeStores: [(name: String, make: @Sendable () -> Store<LargeState>)] = [
    ("gate_f_in_place", { Store(reducer: largeInPlaceReducer, state: LargeState(count: 100_000)) }),
    (
      "gate_f_consuming_function",
      { Store(reducer: largeConsumingReducer, state: LargeState(count: 100_000)) }
    ),
    (
      "gate_f_reducer_closure",
      {
        Store(
          reducer: { action, state in
            var state = state ?? LargeState(count: 0)
            if let action = action as? SetItem { state.items[action.index] = action.value }
            return state
          },
          state: LargeState(count: 100_000))
      }
    ),
  ]
  for (name, make) in largeStores {
    Benchmark(name, configuration: gate) { benchmark in
      let store = make()
      benchmark.startMeasurement()
      for iteration in 0..<10_000 { store.dispatch(SetItem(index: iteration, value: iteration)) }
      benchmark.stopMeasurement()
      blackHole(store.state.items[0])
    }
  }
}

// MARK: b, c, e: subscribers

private func subscriberBenchmarks() {
  Benchmark("b baseline: 1,000 comparisons of one Int each", configuration: .kilo) { benchmark in
    var fields = Array(repeating: 0, count: 1_000)
    var seen = fields
    var changed = 0
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      fields[iteration % 1_000] &+= 1
      for index in 0..<1_000 where seen[index] != fields[index] {
        seen[index] = fields[index]
        changed &+= 1
      }
    }
    blackHole(changed)
  }

  Benchmark(
    "b: 1,000 subscribers each select one of 1,000 fields, one changes", configuration: .kilo
  ) {
    benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<1_000).map { index in
        let view = CountingView<Int>()
        store.subscribe(view) { $0.select { $0.values[index] } }
        return view
      }
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetField(index: iteration % 1_000))
      }
      benchmark.stopMeasurement()
      require(views.map(\.received).reduce(0, +) == 1_000 + benchmark.scaledIterations.count)
    }
  }

  Benchmark("c baseline: 1,000 closures called", configuration: .kilo) { benchmark in
    var total = 0
    let closures = (0..<1_000).map { offset in opaque { (value: Int) in value &+ offset } }
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      for closure in closures { total &+= closure(iteration) }
    }
    blackHole(total)
  }

  Benchmark("c: 1,000 subscribers, every one notified", configuration: .kilo) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<1_000).map { _ in
        let view = CountingView<Int>()
        store.subscribe(view) { $0.select(\.version) }
        return view
      }
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetField(index: iteration % 1_000))
      }
      benchmark.stopMeasurement()
      require(views.allSatisfy { $0.received == 1 + benchmark.scaledIterations.count })
    }
  }

  for standing in [0, 10_000] {
    Benchmark(
      "e: subscribe + unsubscribe with \(standing) standing subscribers", configuration: .kilo
    ) { benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = fieldsStore()
        let views = (0..<standing).map { _ in
          let view = CountingView<Int>()
          store.subscribe(view) { $0.select(\.version) }
          return view
        }
        let view = CountingView<Int>()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
          store.subscribe(view) { $0.select(\.version) }
          store.unsubscribe(view)
        }
        benchmark.stopMeasurement()
        blackHole(views)
      }
    }
  }
}

// MARK: f: one element of a large array

private func largeStateBenchmarks() {
  Benchmark("f baseline: one element of a 100,000-element array set directly", configuration: .kilo)
  {
    benchmark in
    var state = LargeState(count: 100_000)
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      state.items[iteration % 100_000] = iteration
    }
    blackHole(state.items[0])
  }

  for count in [10_000, 100_000, 1_000_000] {
    Benchmark("f: in-place reducer, \(count) elements", configuration: .kilo) { benchmark in
      let store = Store<LargeState>(reducer: largeInPlaceReducer, state: LargeState(count: count))
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetItem(index: iteration % count, value: iteration))
      }
      benchmark.stopMeasurement()
      blackHole(store.state.items[0])
    }
  }

  Benchmark("f: ReSwift-shaped reducer closure, 100000 elements", configuration: .kilo) {
    benchmark in
    let store = Store<LargeState>(
      reducer: { action, state in
        var state = state ?? LargeState(count: 0)
        if let action = action as? SetItem { state.items[action.index] = action.value }
        return state
      },
      state: LargeState(count: 100_000)
    )
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration % 100_000, value: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
  }

  Benchmark("f: ReSwift-shaped consuming function, 100000 elements", configuration: .kilo) {
    benchmark in
    let store = Store<LargeState>(reducer: largeConsumingReducer, state: LargeState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration % 100_000, value: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
  }

  Benchmark("f: ReSwift-shaped borrowing function (copies), 100000 elements") { benchmark in
    let store = Store<LargeState>(reducer: largeBorrowingReducer, state: LargeState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration % 100_000, value: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
  }
}

// MARK: g: memory per subscriber

private func memoryBenchmarks() {
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
}

// MARK: Fixtures

extension Benchmark.Configuration {
  fileprivate static var kilo: Self {
    var configuration = Benchmark.defaultConfiguration
    configuration.scalingFactor = .kilo
    return configuration
  }
}

private struct Tick: Action {}

private func counterReducer(action: Action, state: Int?) -> Int {
  (state ?? 0) &+ 1
}

private struct Fields: Equatable, Sendable {
  var values = Array(repeating: 0, count: 1_000)
  var version = 0
}

private struct SetField: Action {
  let index: Int
}

/// Changes only the version: selections of the values see no change.
private struct SetVersionOnly: Action {}

@MainActor
private func fieldsStore() -> Store<Fields> {
  Store<Fields>(
    reducer: { (state: inout Fields, action: Action) in
      if action is SetVersionOnly {
        state.version &+= 1
        return
      }
      guard let action = action as? SetField else { return }
      state.values[action.index] &+= 1
      state.version &+= 1
    },
    state: Fields()
  )
}

private final class CountingView<Value>: StoreSubscriber {
  private(set) var received = 0

  func newState(state: Value) {
    received &+= 1
  }
}

private struct LargeState: Sendable {
  var items: [Int]

  init(count: Int) {
    items = Array(repeating: 0, count: count)
  }
}

private struct SetItem: Action {
  let index: Int
  let value: Int
}

private func largeInPlaceReducer(state: inout LargeState, action: Action) {
  if let action = action as? SetItem { state.items[action.index] = action.value }
}

private func largeConsumingReducer(action: Action, state: consuming LargeState?) -> LargeState {
  guard var state = consume state else { return LargeState(count: 0) }
  if let action = action as? SetItem { state.items[action.index] = action.value }
  return state
}

private func largeBorrowingReducer(action: Action, state: LargeState?) -> LargeState {
  var state = state ?? LargeState(count: 0)
  if let action = action as? SetItem { state.items[action.index] = action.value }
  return state
}

/// Hides `value` from the optimizer, so a baseline calls through a function value as the store
/// does instead of being folded away.
@inline(never)
private func opaque<Value>(_ value: Value) -> Value {
  value
}

/// Runs `body` on the main actor, where subscribers live and where a dispatch notifies them
/// before it returns.
private func onMainActor(
  _ benchmark: Benchmark, _ body: @MainActor (Benchmark) -> Void
) async {
  // The runner uses `benchmark` only after this returns: the two never touch it at once.
  nonisolated(unsafe) let benchmark = benchmark
  await MainActor.run { body(benchmark) }
}

/// Stops the run if a benchmark did not do the work it claims to measure.
private func require(_ condition: Bool, _ line: UInt = #line) {
  if !condition { fatalError("benchmark check failed at line \(line)") }
}
