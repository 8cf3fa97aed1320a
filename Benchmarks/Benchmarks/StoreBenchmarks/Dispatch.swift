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
  // The least any store pays for row d's middleware: the app's 10 closures as ReSwift's
  // `[Middleware<Int>]` hands them over (converted to the array's generic form in the app's code),
  // composed around a counter the cheapest way known (`passAlong`, as the store composes them),
  // with no store, lock or reducer.
  Benchmark("d floor: the same 10 middleware composed, no store", configuration: .kilo) {
    benchmark in
    let passThrough: Middleware<Int> = { _, _ in { next in { action in next(action) } } }
    let middleware: [Middleware<Int>] = opaque(Array(repeating: passThrough, count: 10))
    nonisolated(unsafe) let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    count.initialize(to: 0)
    defer { count.deallocate() }
    let dispatch = passAlong(middleware, around: { (_: any Action) in count.pointee &+= 1 })
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      dispatch(Tick())
    }
    benchmark.stopMeasurement()
    require(count.pointee == benchmark.scaledIterations.count)
  }

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

/// Wraps `last` in each middleware, generic over the functions passed along so that they stay in
/// the form the array holds them in: converted out of it and back, each would add two
/// reabstraction thunks per middleware to every call.
func passAlong<Function>(
  _ middleware:
    [@Sendable (@escaping DispatchFunction, @escaping GetState<Int>) -> (Function) -> Function],
  around last: Function
) -> Function {
  var next = last
  for layer in middleware.reversed() {
    next = layer({ _ in }, { nil })(next)
  }
  return next
}
