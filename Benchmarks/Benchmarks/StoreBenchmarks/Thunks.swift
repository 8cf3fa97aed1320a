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
