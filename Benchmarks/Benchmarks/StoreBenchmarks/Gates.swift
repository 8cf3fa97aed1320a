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
}
