import Benchmark
import Statecraft
import StatecraftEntities

// MARK: s: an entity collection against the hand-written pattern and an array (issue 31)

/// An entity of the s rows: 32 bytes, its title short enough to be stored inline.
struct Entity: Identifiable, Equatable, Sendable {
  let id: Int
  var rank: Int
  var title: String
}

/// The same entities held three ways, in insertion order and again sorted by rank.
///
/// The three ways: an `EntityCollection`, the hand-written `[ID: Item]` plus `[ID]`, and an array
/// searched with `firstIndex(where:)`. Entity `i` has rank `2 i`, so an entity with an odd rank
/// inserts between two.
final class EntityWorkload {
  var collection: EntityCollection<Int, Entity>
  var byID: [Int: Entity]
  var order: [Int]
  var array: [Entity]
  var sortedCollection: EntityCollection<Int, Entity>
  var sortedOrder: [Int]
  var sortedArray: [Entity]
  /// Ids in a random order, to visit the entities the way an app does.
  let probes: [Int]

  init(count: Int) {
    let entities = (0..<count).map { Entity(id: $0, rank: 2 * $0, title: "entity \($0)") }
    collection = EntityCollection(entities)
    byID = Dictionary(uniqueKeysWithValues: entities.map { ($0.id, $0) })
    order = entities.map(\.id)
    array = entities
    sortedCollection = EntityCollection(entities, order: .sorted(by: \.rank))
    sortedOrder = order
    sortedArray = entities
    var state: UInt64 = 0x5EED
    probes = (0..<4_096).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(count))
    }
  }

  func probe(_ iteration: Int) -> Int { probes[iteration & 4_095] }

  /// A new entity with an odd rank, which goes between two others in the sorted holders.
  func newEntity(_ iteration: Int) -> Entity {
    let neighbour = probe(iteration)
    return Entity(id: -1 - neighbour, rank: 2 * neighbour + 1, title: "new")
  }

  /// Built once per size, the first time a row of that size runs; the rows run one at a time.
  nonisolated(unsafe) private static var built: [Int: EntityWorkload] = [:]

  static func of(count: Int) -> EntityWorkload {
    if let workload = built[count] { return workload }
    let workload = EntityWorkload(count: count)
    built[count] = workload
    return workload
  }
}

/// The first position in `order` whose entity's rank is above `rank`: the hand-written binary
/// search, which reads each rank through the dictionary.
private func insertionPoint(ofRank rank: Int, in order: [Int], _ byID: [Int: Entity]) -> Int {
  var low = 0
  var high = order.count
  while low < high {
    let middle = (low + high) / 2
    if rank < byID[order[middle]]?.rank ?? 0 { high = middle } else { low = middle + 1 }
  }
  return low
}

func entityBenchmarks() {
  // O(n) operations: one per iteration, so the 1M rows stay within their time.
  let linear = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, warmupIterations: 2,
    maxDuration: .seconds(2), maxIterations: 1_000)
  for count in [10_000, 100_000, 1_000_000] {
    lookupBenchmarks(count: count, linear: linear)
    upsertBenchmarks(count: count, linear: linear)
    removalBenchmarks(count: count, linear: linear)
    sortedInsertBenchmarks(count: count, linear: linear)
    iterationBenchmarks(count: count, linear: linear)
  }
  entityDispatchBenchmarks()
}

private func lookupBenchmarks(count: Int, linear: Benchmark.Configuration) {
  Benchmark("s: lookup by id, EntityCollection, \(count)", configuration: .kilo) { benchmark in
    let workload = EntityWorkload.of(count: count)
    var sum = 0
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      sum &+= workload.collection[id: workload.probe(iteration)]?.rank ?? 0
    }
    benchmark.stopMeasurement()
    blackHole(sum)
  }
  Benchmark("s baseline: lookup by id, [ID: Item] + [ID], \(count)", configuration: .kilo) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    var sum = 0
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      sum &+= workload.byID[workload.probe(iteration)]?.rank ?? 0
    }
    benchmark.stopMeasurement()
    blackHole(sum)
  }
  Benchmark("s baseline: lookup by id, array firstIndex(where:), \(count)", configuration: linear) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    let id = workload.probe(benchmark.currentIteration)
    benchmark.startMeasurement()
    let position = workload.array.firstIndex { $0.id == id }
    benchmark.stopMeasurement()
    blackHole(position.map { workload.array[$0].rank })
  }
}

private func upsertBenchmarks(count: Int, linear: Benchmark.Configuration) {
  Benchmark("s: upsert of an existing entity, EntityCollection, \(count)", configuration: .kilo) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      let id = workload.probe(iteration)
      workload.collection.upsert(Entity(id: id, rank: 2 * id, title: "upserted"))
    }
    benchmark.stopMeasurement()
  }
  Benchmark(
    "s baseline: upsert of an existing entity, [ID: Item] + [ID], \(count)", configuration: .kilo
  ) { benchmark in
    let workload = EntityWorkload.of(count: count)
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      let id = workload.probe(iteration)
      let entity = Entity(id: id, rank: 2 * id, title: "upserted")
      if workload.byID.updateValue(entity, forKey: id) == nil { workload.order.append(id) }
    }
    benchmark.stopMeasurement()
  }
  Benchmark(
    "s baseline: upsert of an existing entity, array firstIndex(where:), \(count)",
    configuration: linear
  ) { benchmark in
    let workload = EntityWorkload.of(count: count)
    let id = workload.probe(benchmark.currentIteration)
    let entity = Entity(id: id, rank: 2 * id, title: "upserted")
    benchmark.startMeasurement()
    if let position = workload.array.firstIndex(where: { $0.id == id }) {
      workload.array[position] = entity
    } else {
      workload.array.append(entity)
    }
    benchmark.stopMeasurement()
  }
}

/// Removes an entity at a random place and adds it back at the end, so the size stays.
private func removalBenchmarks(count: Int, linear: Benchmark.Configuration) {
  Benchmark("s: removal by id (and re-adding), EntityCollection, \(count)", configuration: linear) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    let id = workload.probe(benchmark.currentIteration)
    benchmark.startMeasurement()
    if let entity = workload.collection.remove(id: id) { workload.collection.add(entity) }
    benchmark.stopMeasurement()
  }
  Benchmark(
    "s baseline: removal by id (and re-adding), [ID: Item] + [ID], \(count)",
    configuration: linear
  ) { benchmark in
    let workload = EntityWorkload.of(count: count)
    let id = workload.probe(benchmark.currentIteration)
    benchmark.startMeasurement()
    if let entity = workload.byID.removeValue(forKey: id),
      let position = workload.order.firstIndex(of: id)
    {
      workload.order.remove(at: position)
      workload.byID[id] = entity
      workload.order.append(id)
    }
    benchmark.stopMeasurement()
  }
  Benchmark(
    "s baseline: removal by id (and re-adding), array firstIndex(where:), \(count)",
    configuration: linear
  ) { benchmark in
    let workload = EntityWorkload.of(count: count)
    let id = workload.probe(benchmark.currentIteration)
    benchmark.startMeasurement()
    if let position = workload.array.firstIndex(where: { $0.id == id }) {
      workload.array.append(workload.array.remove(at: position))
    }
    benchmark.stopMeasurement()
  }
}

/// Inserts an entity between two others in a sorted order; it is removed again outside the
/// measurement.
private func sortedInsertBenchmarks(count: Int, linear: Benchmark.Configuration) {
  Benchmark("s: sorted insert, EntityCollection sorted by rank, \(count)", configuration: linear) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    let entity = workload.newEntity(benchmark.currentIteration)
    benchmark.startMeasurement()
    workload.sortedCollection.add(entity)
    benchmark.stopMeasurement()
    require(workload.sortedCollection.remove(id: entity.id) != nil)
  }
  Benchmark(
    "s baseline: sorted insert, [ID: Item] + [ID] with a binary search, \(count)",
    configuration: linear
  ) { benchmark in
    let workload = EntityWorkload.of(count: count)
    let entity = workload.newEntity(benchmark.currentIteration)
    benchmark.startMeasurement()
    workload.byID[entity.id] = entity
    let position = insertionPoint(ofRank: entity.rank, in: workload.sortedOrder, workload.byID)
    workload.sortedOrder.insert(entity.id, at: position)
    benchmark.stopMeasurement()
    workload.byID[entity.id] = nil
    workload.sortedOrder.remove(at: position)
  }
  Benchmark(
    "s baseline: sorted insert, array firstIndex(where:), \(count)", configuration: linear
  ) { benchmark in
    let workload = EntityWorkload.of(count: count)
    let entity = workload.newEntity(benchmark.currentIteration)
    benchmark.startMeasurement()
    let position =
      workload.sortedArray.firstIndex { $0.rank > entity.rank } ?? workload.sortedArray.count
    workload.sortedArray.insert(entity, at: position)
    benchmark.stopMeasurement()
    workload.sortedArray.remove(at: position)
  }
}

/// Sums a property of every entity, in order.
private func iterationBenchmarks(count: Int, linear: Benchmark.Configuration) {
  Benchmark("s: iteration in order, EntityCollection, \(count)", configuration: linear) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    var sum = 0
    benchmark.startMeasurement()
    for entity in workload.collection { sum &+= entity.rank }
    benchmark.stopMeasurement()
    blackHole(sum)
  }
  Benchmark("s baseline: iteration in order, [ID: Item] + [ID], \(count)", configuration: linear) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    var sum = 0
    benchmark.startMeasurement()
    for id in workload.order { sum &+= workload.byID[id]?.rank ?? 0 }
    benchmark.stopMeasurement()
    blackHole(sum)
  }
  Benchmark("s baseline: iteration in order, array, \(count)", configuration: linear) {
    benchmark in
    let workload = EntityWorkload.of(count: count)
    var sum = 0
    benchmark.startMeasurement()
    for entity in workload.array { sum &+= entity.rank }
    benchmark.stopMeasurement()
    blackHole(sum)
  }
}

// MARK: s: one entity of a 100,000-entity collection through a store

struct EntitiesState: Sendable {
  var entities: EntityCollection<Int, Entity>

  init(count: Int) {
    entities = EntityCollection((0..<count).map { Entity(id: $0, rank: 0, title: "entity \($0)") })
  }
}

struct SetRank: Action {
  let id: Int
  let rank: Int
}

func entitiesInPlaceReducer(state: inout EntitiesState, action: Action) {
  if let action = action as? SetRank { state.entities[id: action.id]?.rank = action.rank }
}

/// The same change through `update(id:_:)`, which changes the entity where it is stored.
func entitiesUpdateReducer(state: inout EntitiesState, action: Action) {
  if let action = action as? SetRank {
    state.entities.update(id: action.id) { $0.rank = action.rank }
  }
}

private func entityDispatchBenchmarks() {
  Benchmark(
    "s: dispatch changing one entity of 100000, in-place reducer", configuration: .kilo
  ) { benchmark in
    let store = Store(reducer: entitiesInPlaceReducer, state: EntitiesState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetRank(id: iteration &* 7_919 % 100_000, rank: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.entities.count)
  }
  Benchmark(
    "s: dispatch changing one entity of 100000 with update(id:_:), in-place reducer",
    configuration: .kilo
  ) { benchmark in
    let store = Store(reducer: entitiesUpdateReducer, state: EntitiesState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetRank(id: iteration &* 7_919 % 100_000, rank: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.entities.count)
  }
  Benchmark(
    "s baseline: dispatch changing one element of a 100000-element array, in-place reducer",
    configuration: .kilo
  ) { benchmark in
    let store = Store<LargeState>(reducer: largeInPlaceReducer, state: LargeState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      store.dispatch(SetItem(index: iteration &* 7_919 % 100_000, value: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(store.state.items[0])
  }
  Benchmark(
    "s baseline: one entity of 100000 changed directly, no store", configuration: .kilo
  ) { benchmark in
    var state = EntitiesState(count: 100_000)
    benchmark.startMeasurement()
    for iteration in benchmark.scaledIterations {
      entitiesInPlaceReducer(
        state: &state, action: SetRank(id: iteration &* 7_919 % 100_000, rank: iteration))
    }
    benchmark.stopMeasurement()
    blackHole(state.entities.count)
  }
  // The gate: 10,000 dispatches that each change one entity allocate nothing.
  Benchmark(
    "gate_s_dispatch_one_entity_of_100k",
    configuration: .init(
      metrics: [.mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(1),
      maxIterations: 20)
  ) { benchmark in
    let store = Store(reducer: entitiesInPlaceReducer, state: EntitiesState(count: 100_000))
    benchmark.startMeasurement()
    for iteration in 0..<10_000 {
      store.dispatch(SetRank(id: iteration &* 7_919 % 100_000, rank: iteration))
    }
    benchmark.stopMeasurement()
    require(store.state.entities[id: 7_919]?.rank == 1)
  }
}
