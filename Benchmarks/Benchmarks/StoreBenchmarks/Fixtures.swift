import Benchmark
import Statecraft

// MARK: Fixtures

extension Benchmark.Configuration {
  static var kilo: Self {
    var configuration = Benchmark.defaultConfiguration
    configuration.scalingFactor = .kilo
    return configuration
  }
}

struct Tick: Action {}

/// An action too large for an existential's inline buffer (three words): held as `any Action`,
/// it lives in a box of its own.
struct WideAction: Action {
  var a, b, c, d: Int
}

func counterReducer(action: Action, state: Int?) -> Int {
  (state ?? 0) &+ 1
}

struct Fields: Equatable, Sendable {
  var values = Array(repeating: 0, count: 1_000)
  var version = 0
}

struct SetField: Action {
  let index: Int
}

/// Changes only the version: selections of the values see no change.
struct SetVersionOnly: Action {}

@MainActor
func fieldsStore() -> Store<Fields> {
  Store<Fields>(
    reducer: { (state: inout Fields, action: Action) in
      if action is SetVersionOnly {
        state.version &+= 1
        return
      }
      guard let action = action as? SetField else { return }
      state.values[action.index] &+= 1
      state.version &+= 1
    },
    state: Fields()
  )
}

final class CountingView<Value>: StoreSubscriber {
  private(set) var received = 0

  func newState(state: Value) {
    received &+= 1
  }
}

struct LargeState: Sendable {
  var items: [Int]

  init(count: Int) {
    items = Array(repeating: 0, count: count)
  }
}

struct SetItem: Action {
  let index: Int
  let value: Int
}

func largeInPlaceReducer(state: inout LargeState, action: Action) {
  if let action = action as? SetItem { state.items[action.index] = action.value }
}

func largeConsumingReducer(action: Action, state: consuming LargeState?) -> LargeState {
  guard var state = consume state else { return LargeState(count: 0) }
  if let action = action as? SetItem { state.items[action.index] = action.value }
  return state
}

func largeBorrowingReducer(action: Action, state: LargeState?) -> LargeState {
  var state = state ?? LargeState(count: 0)
  if let action = action as? SetItem { state.items[action.index] = action.value }
  return state
}

/// Hides `value` from the optimizer, so a baseline calls through a function value as the store
/// does instead of being folded away.
@inline(never)
func opaque<Value>(_ value: Value) -> Value {
  value
}

/// Runs `body` on the main actor, where subscribers live and where a dispatch notifies them
/// before it returns.
func onMainActor(
  _ benchmark: Benchmark, _ body: @MainActor (Benchmark) -> Void
) async {
  // The runner uses `benchmark` only after this returns: the two never touch it at once.
  nonisolated(unsafe) let benchmark = benchmark
  await MainActor.run { body(benchmark) }
}

/// Stops the run if a benchmark did not do the work it claims to measure.
func require(_ condition: Bool, _ line: UInt = #line) {
  if !condition { fatalError("benchmark check failed at line \(line)") }
}
