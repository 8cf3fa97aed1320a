import Benchmark
import Statecraft

// MARK: Issue 6: selectors, scopes, batching

func compositionBenchmarks() {
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
