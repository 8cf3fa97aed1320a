// ReSwift 6.1.1 and ReSwift-Thunk 2.0.1 on the workloads of the rows they share with Statecraft,
// built only when the manifest finds their checkouts (see Benchmarks/README.md, "ReSwift beside
// us"). Each benchmark is named "ReSwift " followed by the name of the Statecraft benchmark it
// pairs with, so that one run gives both figures. This file imports ReSwift and not Statecraft:
// `Store`, `Action` and `StoreSubscriber` here are ReSwift's.
#if STATECRAFT_RESWIFT
  import Benchmark
  @preconcurrency import ReSwift
  import ReSwiftThunk

  private struct ReTick: Action {}

  private struct ReSetField: Action {
    let index: Int
  }

  private struct ReSetItem: Action {
    let index: Int
    let value: Int
  }

  private func reCounterReducer(action: Action, state: Int?) -> Int {
    (state ?? 0) &+ 1
  }

  /// ReSwift's reducer shape: the state comes in as a copy and goes out as the result.
  private func reFieldsReducer(action: Action, state: Fields?) -> Fields {
    var state = state ?? Fields()
    guard let action = action as? ReSetField else { return state }
    state.values[action.index] &+= 1
    state.version &+= 1
    return state
  }

  private func reLargeReducer(action: Action, state: LargeState?) -> LargeState {
    var state = state ?? LargeState(count: 0)
    if let action = action as? ReSetItem { state.items[action.index] = action.value }
    return state
  }

  private final class ReCountingView<Value>: StoreSubscriber {
    private(set) var received = 0
    private(set) var last: Value?

    func newState(state: Value) {
      received &+= 1
      last = state
    }
  }

  func reSwiftBenchmarks() {
    Benchmark("ReSwift a: dispatch, trivial reducer", configuration: .kilo) { benchmark in
      let store = Store<Int>(reducer: reCounterReducer, state: 0)
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        store.dispatch(ReTick())
      }
      benchmark.stopMeasurement()
      require(store.state == benchmark.scaledIterations.count)
    }

    Benchmark("ReSwift a1: dispatch on the main thread, 1 subscriber", configuration: .kilo) {
      benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = Store<Int>(reducer: reCounterReducer, state: 0)
        let view = ReCountingView<Int>()
        store.subscribe(view)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
          store.dispatch(ReTick())
        }
        benchmark.stopMeasurement()
        require(view.received == 1 + benchmark.scaledIterations.count)
      }
    }

    Benchmark(
      "ReSwift h: thunk round trip, synchronous body (ReSwift-Thunk's shape)",
      configuration: .kilo
    ) { benchmark in
      let store = Store<Int>(
        reducer: reCounterReducer, state: 0, middleware: [createThunkMiddleware()])
      let thunk = Thunk<Int> { dispatch, _ in dispatch(ReTick()) }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        store.dispatch(thunk)
      }
      benchmark.stopMeasurement()
      require(store.state == benchmark.scaledIterations.count)
    }

    Benchmark("ReSwift d: dispatch through 10 pass-through middlewares", configuration: .kilo) {
      benchmark in
      let passThrough: Middleware<Int> = { _, _ in { next in { action in next(action) } } }
      let store = Store<Int>(
        reducer: reCounterReducer, state: 0,
        middleware: Array(repeating: passThrough, count: 10))
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        store.dispatch(ReTick())
      }
      benchmark.stopMeasurement()
      require(store.state == benchmark.scaledIterations.count)
    }

    Benchmark(
      "ReSwift b: 1,000 subscribers each select one of 1,000 fields, one changes",
      configuration: .kilo
    ) { benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = Store<Fields>(reducer: reFieldsReducer, state: Fields())
        let views = (0..<1_000).map { index in
          let view = ReCountingView<Int>()
          store.subscribe(view) { $0.select { $0.values[index] } }
          return view
        }
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
          store.dispatch(ReSetField(index: iteration % 1_000))
        }
        benchmark.stopMeasurement()
        require(views.map(\.received).reduce(0, +) == 1_000 + benchmark.scaledIterations.count)
      }
    }

    Benchmark("ReSwift c: 1,000 subscribers, every one notified", configuration: .kilo) {
      benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = Store<Fields>(reducer: reFieldsReducer, state: Fields())
        let views = (0..<1_000).map { _ in
          let view = ReCountingView<Int>()
          store.subscribe(view) { $0.select { $0.version } }
          return view
        }
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
          store.dispatch(ReSetField(index: iteration % 1_000))
        }
        benchmark.stopMeasurement()
        require(views.allSatisfy { $0.received == 1 + benchmark.scaledIterations.count })
      }
    }

    Benchmark(
      "ReSwift e: subscribe + unsubscribe with 0 standing subscribers", configuration: .kilo
    ) { benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = Store<Fields>(reducer: reFieldsReducer, state: Fields())
        let view = ReCountingView<Int>()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
          store.subscribe(view) { $0.select { $0.version } }
          store.unsubscribe(view)
        }
        benchmark.stopMeasurement()
        require(view.received == benchmark.scaledIterations.count)
      }
    }

    Benchmark(
      "ReSwift g: subscribe, the last 1,000 of 100,000",
      configuration: .init(
        metrics: [.wallClock], timeUnits: .nanoseconds, scalingFactor: .kilo, maxIterations: 5)
    ) { benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = Store<Fields>(reducer: reFieldsReducer, state: Fields())
        let views = (0..<100_000).map { _ in ReCountingView<Int>() }
        for view in views.dropLast(1_000) {
          store.subscribe(view) { $0.select { $0.version } }
        }
        benchmark.startMeasurement()
        for view in views.suffix(1_000) {
          store.subscribe(view) { $0.select { $0.version } }
        }
        benchmark.stopMeasurement()
        blackHole(views)
      }
    }

    Benchmark(
      "ReSwift g: resident memory per subscriber, 100,000 subscribers",
      configuration: .init(metrics: [residentBytes], warmupIterations: 0, maxIterations: 1)
    ) { benchmark in
      await onMainActor(benchmark) { benchmark in
        let store = Store<Fields>(reducer: reFieldsReducer, state: Fields())
        let views = (0..<100_000).map { _ in ReCountingView<Int>() }
        let before = residentMemory()
        for view in views {
          store.subscribe(view) { $0.select { $0.version } }
        }
        benchmark.measurement(residentBytes, (residentMemory() - before) / views.count)
        blackHole(views)
      }
    }

    // ReSwift's reducer receives a copy of the state: each dispatch copies the array.
    Benchmark(
      "ReSwift f: one element, 1000000 elements",
      configuration: .init(
        metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(2),
        maxIterations: 200)
    ) { benchmark in
      let store = Store<LargeState>(
        reducer: reLargeReducer, state: LargeState(count: 1_000_000))
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(ReSetItem(index: iteration % 1_000_000, value: iteration))
      }
      benchmark.stopMeasurement()
      blackHole(store.state.items[0])
    }

    // ReSwift notifies on the dispatching thread: a burst from a task's thread, 1 subscriber.
    Benchmark(
      "ReSwift l: background burst, 1 subscriber, 1000000 elements",
      configuration: .init(
        metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(2),
        maxIterations: 200)
    ) { benchmark in
      let store = Store<LargeState>(
        reducer: reLargeReducer, state: LargeState(count: 1_000_000))
      let view = ReCountingView<Int>()
      store.subscribe(view) { $0.select { $0.items[0] } }
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(ReSetItem(index: iteration % 1_000_000, value: iteration + 1))
      }
      benchmark.stopMeasurement()
      blackHole(view.last)
    }
  }
#endif
