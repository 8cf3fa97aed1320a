import Benchmark
import Statecraft

// MARK: g: memory per subscriber

func memoryBenchmarks() {
  Benchmark(
    "g: allocations per subscriber, 1,000 subscribers",
    configuration: .init(
      metrics: [.mallocCountTotal, .mallocBytesCount, .mallocFreeDelta, .memoryLeakedBytes],
      scalingFactor: .kilo)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<1_000).map { _ in CountingView<Int>() }
      benchmark.startMeasurement()
      for view in views {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.stopMeasurement()
      blackHole(views)
    }
  }

  Benchmark(
    "g: allocations per subscriber, the last 1,000 of 100,000",
    configuration: .init(
      metrics: [.mallocCountTotal, .mallocBytesCount, .mallocFreeDelta, .memoryLeakedBytes],
      scalingFactor: .kilo, maxIterations: 10)
  ) { benchmark in
    await onMainActor(benchmark) { benchmark in
      let store = fieldsStore()
      let views = (0..<100_000).map { _ in CountingView<Int>() }
      for view in views.dropLast(1_000) {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.startMeasurement()
      for view in views.suffix(1_000) {
        store.subscribe(view) { $0.select(\.version) }
      }
      benchmark.stopMeasurement()
      blackHole(views)
    }
  }
}
