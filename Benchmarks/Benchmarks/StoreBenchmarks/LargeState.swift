import Benchmark
import Statecraft

// MARK: f: one element of a large array

func largeStateBenchmarks() {
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
