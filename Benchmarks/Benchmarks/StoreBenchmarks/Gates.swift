import Benchmark
import Statecraft

// MARK: Allocation gates

func gateBenchmarks() {
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
  // An action over three words that the caller holds as `any Action`, as actions from an array,
  // a middleware or a thunk are: the engine passes it on by address and never boxes it again
  // (it did, three times a dispatch, before issue 11's round trip work).
  let boxed = [("gate_a_boxed_action", stores[0].make), ("gate_d_boxed_action", stores[1].make)]
  for (name, make) in boxed {
    Benchmark(name, configuration: gate) { benchmark in
      let store = make()
      let actions: [any Action] = (0..<10_000).map { WideAction(a: $0, b: 1, c: 2, d: 3) }
      benchmark.startMeasurement()
      for action in actions { store.dispatch(action) }
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
  // e between rounds: a view that appears and goes while 10,000 others stand and the store
  // notifies. A subscription's own objects, 100 times; a copy of the registry kept between rounds
  // made each subscribe copy every standing entry (two more allocations each, and O(n) time).
  // The count varies by a few from run to run (the runtime's caches), hence the tolerance.
  let subscribeGate = Benchmark.Configuration(
    metrics: [.mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(1), maxIterations: 20,
    thresholds: [.mallocCountTotal: .init(absolute: [.p90: 20])])
  Benchmark("gate_e_subscribe_between_rounds", configuration: subscribeGate) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<10_000).map { index in
        let view = CountingView<Int>()
        store.subscribe(view) { $0.select { $0.values[1 + index % 999] } }
        return view
      }
      let view = CountingView<Int>()
      store.dispatch(SetField(index: 0))
      benchmark.startMeasurement()
      for _ in 0..<100 {
        store.subscribe(view) { $0.select(\.version) }
        store.dispatch(SetField(index: 0))
        store.unsubscribe(view)
        store.dispatch(SetField(index: 0))
      }
      benchmark.stopMeasurement()
      require(view.received == 200)
      blackHole(views)
    }
  }
}
