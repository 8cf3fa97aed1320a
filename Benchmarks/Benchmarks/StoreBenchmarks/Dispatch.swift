import Benchmark
import Statecraft

// MARK: a, d: dispatch with no subscribers; a1 with one

func dispatchBenchmarks() {
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

  Benchmark("a subclass: dispatch into a store a subclass made", configuration: .kilo) {
    benchmark in
    let store = SubclassStore<Int>(reducer: counterReducer, state: 0)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      store.dispatch(Tick())
    }
    blackHole(store.state)
  }

  Benchmark("a1: dispatch on the main thread, 1 subscriber", configuration: .kilo) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = Store<Int>(reducer: counterReducer, state: 0)
      let view = CountingView<Int>()
      store.subscribe(view)
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        store.dispatch(Tick())
      }
      benchmark.stopMeasurement()
      require(view.received == 1 + benchmark.scaledIterations.count)
    }
  }
}

/// A subclass as ReSwift apps write them.
///
/// Its designated initializer calls `super.init` with ReSwift's four arguments. It restates
/// `@unchecked Sendable`, and stores nothing.
final class SubclassStore<State: Sendable>: Store<State>, @unchecked Sendable {
  convenience init(reducer: @escaping Reducer<State>, state: State?) {
    self.init(reducer: reducer, state: state, middleware: [], automaticallySkipsRepeats: true)
  }

  required init(
    reducer: @escaping Reducer<State>, state: State?, middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool
  ) {
    super.init(
      reducer: reducer, state: state, middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats)
  }
}

func middlewareBenchmarks() {
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
