import Benchmark
import Statecraft

// MARK: b, c, e: subscribers

func subscriberBenchmarks() {
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

  // The same with closure subscriptions: each selection that repeats is skipped before the last
  // step, so an object's weak reference is read only for the one subscriber that receives.
  Benchmark(
    "b: the same with 1,000 closure subscriptions (tokens)", configuration: .kilo
  ) {
    benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<1_000).map { _ in CountingView<Int>() }
      let tokens = views.indices.map { index in
        store.subscribe(
          { $0.select { $0.values[index] } }, receive: { views[index].newState(state: $0) })
      }
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetField(index: iteration % 1_000))
      }
      benchmark.stopMeasurement()
      require(views.map(\.received).reduce(0, +) == 1_000 + benchmark.scaledIterations.count)
      blackHole(tokens)
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

  // The least a store that holds its subscribers weakly (as ReSwift does, so that a view can go
  // without unsubscribing) pays for row c: one pass loading each weak reference and telling the
  // view the new value, with nothing selected, compared or held.
  Benchmark("c floor: 1,000 weakly held views, each loaded and told", configuration: .kilo) {
    benchmark in
    await onMainActor(benchmark) { benchmark in
      let views = (0..<1_000).map { _ in CountingView<Int>() }
      let references = opaque(views.map(WeakView.init))
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        for reference in references { reference.view?.newState(state: iteration) }
      }
      benchmark.stopMeasurement()
      require(views.allSatisfy { $0.received == benchmark.scaledIterations.count })
    }
  }

  // The same with what a store must also do before it tells a view: run each subscription's
  // selector (the app's closure) on the new state and compare with the value it selected last,
  // in one pass, then tell the views whose value changed in a second, as C13 asks (the selectors
  // run under the state lock, the views outside it). Plain arrays, no store, no lock.
  Benchmark(
    "c floor: the same in two passes, each selector run and compared first",
    configuration: .kilo
  ) {
    benchmark in
    await onMainActor(benchmark) { benchmark in
      let views = (0..<1_000).map { _ in CountingView<Int>() }
      let references = opaque(views.map(WeakView.init))
      let selectors = opaque((0..<1_000).map { _ in { (state: Fields) in state.version } })
      var last = Array(repeating: -1, count: 1_000)
      var held = Array(repeating: 0, count: 1_000)
      var state = Fields()
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        state.version &+= 1
        var heldCount = 0
        for index in selectors.indices {
          let value = selectors[index](state)
          if value != last[index] {
            last[index] = value
            held[heldCount] = index
            heldCount += 1
          }
        }
        for index in held[..<heldCount] { references[index].view?.newState(state: last[index]) }
      }
      benchmark.stopMeasurement()
      require(views.allSatisfy { $0.received == benchmark.scaledIterations.count })
    }
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

  Benchmark("c: 1,000 closure subscriptions (tokens), every one notified", configuration: .kilo) {
    benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let received = UnsafeMutablePointer<Int>.allocate(capacity: 1)
      received.initialize(to: 0)
      defer { received.deallocate() }
      let tokens = (0..<1_000).map { _ in
        store.subscribe({ $0.select(\.version) }, receive: { _ in received.pointee &+= 1 })
      }
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetField(index: iteration % 1_000))
      }
      benchmark.stopMeasurement()
      require(received.pointee == 1_000 * (1 + benchmark.scaledIterations.count))
      blackHole(tokens)
    }
  }

  // What a view controller writes with a token: the closure holds the view weakly, so it pays the
  // weak reference that a subscriber object's status pays for it (C9). Like with like for c.
  Benchmark(
    "c: 1,000 tokens whose closures hold their views weakly, every one notified",
    configuration: .kilo
  ) {
    benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<1_000).map { _ in CountingView<Int>() }
      let tokens = views.map { view in
        store.subscribe(
          { $0.select(\.version) }, receive: { [weak view] in view?.newState(state: $0) })
      }
      benchmark.startMeasurement()
      for iteration in benchmark.scaledIterations {
        store.dispatch(SetField(index: iteration % 1_000))
      }
      benchmark.stopMeasurement()
      require(views.allSatisfy { $0.received == 1 + benchmark.scaledIterations.count })
      blackHole(tokens)
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

/// A view held weakly, as a store holds its subscribers: the floors of row c.
@MainActor
private final class WeakView {
  weak var view: CountingView<Int>?
  init(_ view: CountingView<Int>) { self.view = view }
}
