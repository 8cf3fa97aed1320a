import Statecraft
import StatecraftTestSupport
import Testing

/// Property tests of reducer composition over random action sequences. A failure prints the
/// seed; replay it with `ReducerCompositionTests.check(seed:)`.
@Suite(.catchesHangs) struct ReducerCompositionTests {
  struct Pair: Equatable, Sendable {
    var left = Slice()
    var right = Slice()
  }

  struct Slice: Equatable, Sendable {
    var total = 0
    var log: [Int] = []
  }

  enum LeftAction: Action {
    case add(Int)
    case record(Int)
    case reset
  }
  enum RightAction: Action {
    case add(Int)
    case double
  }
  struct Unhandled: Action { let value: Int }

  static let left: InPlaceReducer<Pair> = scopedReducer(\Pair.left) { (slice, action: LeftAction) in
    switch action {
    case .add(let value): slice.total += value
    case .record(let value): slice.log.append(value)
    case .reset: slice = Slice()
    }
  }

  static let right: InPlaceReducer<Pair> = scopedReducer(\Pair.right) {
    (slice, action: RightAction) in
    switch action {
    case .add(let value): slice.total += value
    case .double: slice.total *= 2
    }
  }

  /// Reads both slices and writes the left log: not independent, to make order observable.
  static let mixer: InPlaceReducer<Pair> = { state, action in
    if action is RightAction { state.left.log.append(state.right.total) }
  }

  static let seeds: [UInt64] = (1...200).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }

  @Test(arguments: seeds) func combiningIsAssociative(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let actions = Self.randomActions(&random, count: 40)
    let grouped1 = combineReducers(combineReducers(Self.left, Self.mixer), Self.right)
    let grouped2 = combineReducers(Self.left, combineReducers(Self.mixer, Self.right))
    #expect(
      Self.run(grouped1, actions) == Self.run(grouped2, actions),
      "seed \(seed): replay with SeededRandom(seed: \(seed))")
  }

  @Test(arguments: seeds) func combinedReducersRunFirstToLast(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let actions = Self.randomActions(&random, count: 40)
    var sequential = Pair()
    for action in actions {
      Self.right(&sequential, action)
      Self.mixer(&sequential, action)
    }
    #expect(
      Self.run(combineReducers(Self.right, Self.mixer), actions) == sequential, "seed \(seed)")
  }

  @Test(arguments: seeds) func anActionNoReducerHandlesChangesNothing(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let reducer = combineReducers(Self.left, Self.right, Self.mixer)
    let start = Self.run(reducer, Self.randomActions(&random, count: 20))
    var state = start
    reducer(&state, Unhandled(value: random.next(upTo: 100)))
    #expect(state == start, "seed \(seed)")
  }

  @Test(arguments: seeds) func independentSlicesDoNotInterfere(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let actions = Self.randomActions(&random, count: 40)
    let both = Self.run(combineReducers(Self.left, Self.right), actions)
    let leftOnly = Self.run(Self.left, actions)
    let rightOnly = Self.run(Self.right, actions)
    #expect(both.left == leftOnly.left, "seed \(seed)")
    #expect(both.right == rightOnly.right, "seed \(seed)")
    #expect(leftOnly.right == Slice() && rightOnly.left == Slice(), "seed \(seed)")
  }

  @Test(arguments: seeds) func aScopedReducerEqualsTheDirectOne(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let actions = Self.randomActions(&random, count: 40)
    let scoped = Self.run(Self.right, actions)
    var direct = Slice()
    for case let action as RightAction in actions {
      switch action {
      case .add(let value): direct.total += value
      case .double: direct.total *= 2
      }
    }
    #expect(scoped.right == direct, "seed \(seed)")
  }

  @Test func reSwiftShapedSliceReducersAndAdaptersCombine() {
    let counter: Reducer<Int> = { action, state in
      (state ?? 0)
        + ((action as? LeftAction).map { if case .add(let v) = $0 { v } else { 0 } } ?? 0)
    }
    struct Whole: Equatable, Sendable { var count = 0 }
    let reducer = combineReducers(
      scopedReducer(\Whole.count, inPlace(counter)),
      inPlace { (_: Action, state: Whole?) in state ?? Whole() })
    var state = Whole()
    reducer(&state, LeftAction.add(3))
    #expect(state.count == 3)
    let store = Store(reducer: reducer, state: Whole())
    store.dispatch(LeftAction.add(4))
    #expect(store.state.count == 4)
  }

  static func run(_ reducer: InPlaceReducer<Pair>, _ actions: [any Action]) -> Pair {
    var state = Pair()
    for action in actions { reducer(&state, action) }
    return state
  }

  static func randomActions(_ random: inout SeededRandom, count: Int) -> [any Action] {
    (0..<count).map { _ -> any Action in
      let value = random.next(upTo: 10)
      switch random.next(upTo: 6) {
      case 0: return LeftAction.add(value)
      case 1: return LeftAction.record(value)
      case 2: return LeftAction.reset
      case 3: return RightAction.add(value)
      case 4: return RightAction.double
      default: return Unhandled(value: value)
      }
    }
  }
}
