import Benchmark
import Statecraft

// MARK: h: thunk round trip

func thunkBenchmarks() {
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

  // ReSwift-Thunk's shape: a body with `dispatch` and `getState` that does not suspend.
  Benchmark(
    "h: thunk round trip, synchronous body (ReSwift-Thunk's shape), dispatch + await",
    configuration: .kilo
  ) {
    benchmark in
    let store = Store<Int>(reducer: counterReducer, state: 0)
    let thunk = Thunk<Int> { dispatch, _ in dispatch(Tick()) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      try? await store.dispatch(thunk).value
    }
    benchmark.stopMeasurement()
    require(store.state == benchmark.scaledIterations.count)
  }

  // The least an async body dispatched from synchronous code costs: a task, started where the
  // caller runs (`Task.immediate`, as the store starts a run's) and awaited, with an empty body.
  if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
    Benchmark("h floor: a task per run, Task.immediate, empty body, awaited", configuration: .kilo)
    {
      benchmark in
      var total = 0
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        total &+= await Task.immediate { iteration }.value
      }
      benchmark.stopMeasurement()
      blackHole(total)
    }
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

  // A listener that matches no action, against one pass-through middleware: the listener's cost
  // is the difference (issue 11: at most 20 ns).
  Benchmark("h baseline: dispatch through one pass-through middleware", configuration: .kilo) {
    benchmark in
    let passThrough: Middleware<Int> = { _, _ in { next in { action in next(action) } } }
    let store = Store<Int>(reducer: counterReducer, state: 0, middleware: [passThrough])
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      store.dispatch(Tick())
    }
    blackHole(store.state)
  }

  Benchmark("h: dispatch through a listener middleware that matches nothing", configuration: .kilo)
  {
    benchmark in
    struct Unheard: Action {}
    let store = Store<Int>(
      reducer: counterReducer, state: 0,
      middleware: [createListenerMiddleware(.on(Unheard.self) { _, _ in })])
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      store.dispatch(Tick())
    }
    blackHole(store.state)
  }
}
