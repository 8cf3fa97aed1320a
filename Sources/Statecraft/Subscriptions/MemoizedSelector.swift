import StatecraftPrimitives

// Inlinable, so that the steps are compiled for the app's types (Benchmarks/README.md, "Why
// the engine is inlinable").

/// A value derived from parts of the state, computed once for each change of those parts and
/// shared by every subscriber that uses it: reselect's memoized selector.
///
/// ```swift
/// let visibleFilms = createSelector(\AppState.films, \AppState.filter) { films, filter in
///   films.filter { filter.matches($0) }.sorted { $0.episodeID < $1.episodeID }
/// }
///
/// mainStore.subscribe(self) { $0.select(visibleFilms) }
/// ```
///
/// The inputs are read from each state and compared with the previous ones; the derived value
/// is computed again only when an input changed. Selectors are `Sendable` and can be called from
/// any thread.
///
/// Named `MemoizedSelector` because `Selector` is Objective-C's selector type on Apple
/// platforms.
///
/// In debug builds a selector reports, through ``StatecraftDiagnostics/warningHandler``, an input
/// that returns unequal values for the same state (so the cache never hits) and a derived type
/// that is not `Equatable` (so subscribers cannot skip repeats).
public final class MemoizedSelector<State, Output: Sendable>: Sendable {
  @usableFromInline let evaluate: @Sendable (State) -> Computed<Output>
  private let counter: Locked<Int>
  /// The value computed for the last delivery pass, and that pass; touched only on the main
  /// queue, by subscription steps, one at a time.
  @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var _inPass:
    (pass: UInt64, computed: Computed<Output>)?

  init(
    _ evaluate: @escaping @Sendable (State, _ recomputed: @Sendable () -> Int) -> Computed<Output>
  ) {
    let counter = Locked(0)
    self.counter = counter
    self.evaluate = { state in
      evaluate(state) {
        counter.withLock {
          $0 += 1
          return $0
        }
      }
    }
  }

  /// The derived value for `state`.
  ///
  /// - Parameter state: A state of the store.
  /// - Returns: The cached value if the inputs did not change, else a newly computed one.
  /// - Complexity: The inputs, read and compared; plus the derived value's computation when an
  ///   input changed.
  public func callAsFunction(_ state: State) -> Output {
    evaluate(state).value
  }

  /// The derived value for the state being delivered on the main queue, computed once per
  /// delivery pass for all the subscribers that select it, with the number of the computation
  /// that produced it.
  ///
  /// Every subscription of a pass receives the same state, so the value computed for the first
  /// is the value for all: a hit costs a comparison of two integers, not a lock and the inputs'
  /// comparison.
  @inlinable
  func _computedInPass(_ state: State) -> Computed<Output> {
    let pass = DeliveryPass.current
    if let cached = _inPass, cached.pass == pass { return cached.computed }
    let computed = evaluate(state)
    _inPass = (pass, computed)
    return computed
  }

  /// How many times the derived value was computed; for tests and benchmarks.
  /// - Complexity: O(1).
  public var recomputations: Int {
    counter.withLock { $0 }
  }
}

/// Creates a memoized selector with one input.
///
/// - Parameters:
///   - input: Reads the input from the state, usually a key path.
///   - combine: Computes the derived value from the input.
/// - Returns: The selector.
/// - Complexity: O(1) to build; see ``MemoizedSelector/callAsFunction(_:)`` for each call.
public func createSelector<State, Input: Equatable & Sendable, Output: Sendable>(
  _ input: @escaping @Sendable (State) -> Input,
  _ combine: @escaping @Sendable (Input) -> Output
) -> MemoizedSelector<State, Output> {
  makeSelector(read: { state in input(state) }, inputsDescription: "1", combine: combine)
}

/// Creates a memoized selector with two inputs.
///
/// - Parameters:
///   - first: Reads the first input from the state, usually a key path.
///   - second: Reads the second input.
///   - combine: Computes the derived value from the inputs.
/// - Returns: The selector.
/// - Complexity: O(1) to build; see ``MemoizedSelector/callAsFunction(_:)`` for each call.
public func createSelector<
  State, First: Equatable & Sendable, Second: Equatable & Sendable, Output: Sendable
>(
  _ first: @escaping @Sendable (State) -> First,
  _ second: @escaping @Sendable (State) -> Second,
  _ combine: @escaping @Sendable (First, Second) -> Output
) -> MemoizedSelector<State, Output> {
  makeSelector(
    read: { state in Pair(first: first(state), second: second(state)) }, inputsDescription: "2",
    combine: { combine($0.first, $0.second) })
}

/// Creates a memoized selector with three inputs.
///
/// - Parameters:
///   - first: Reads the first input from the state, usually a key path.
///   - second: Reads the second input.
///   - third: Reads the third input.
///   - combine: Computes the derived value from the inputs.
/// - Returns: The selector.
/// - Complexity: O(1) to build; see ``MemoizedSelector/callAsFunction(_:)`` for each call.
public func createSelector<
  State, First: Equatable & Sendable, Second: Equatable & Sendable, Third: Equatable & Sendable,
  Output: Sendable
>(
  _ first: @escaping @Sendable (State) -> First,
  _ second: @escaping @Sendable (State) -> Second,
  _ third: @escaping @Sendable (State) -> Third,
  _ combine: @escaping @Sendable (First, Second, Third) -> Output
) -> MemoizedSelector<State, Output> {
  makeSelector(
    read: { state in
      Pair(first: Pair(first: first(state), second: second(state)), second: third(state))
    },
    inputsDescription: "3",
    combine: { combine($0.first.first, $0.first.second, $0.second) })
}

/// A value a memoized selector derived, and the number of the computation that produced it:
/// two values with the same number are the same value.
@usableFromInline
struct Computed<Value: Sendable>: Sendable {
  @usableFromInline let value: Value
  /// Counts the selector's computations from 1.
  @usableFromInline let number: Int

  @usableFromInline
  init(value: Value, number: Int) {
    self.value = value
    self.number = number
  }
}

private struct Pair<First: Equatable & Sendable, Second: Equatable & Sendable>: Equatable,
  Sendable
{
  let first: First
  let second: Second
}

private func makeSelector<State, Inputs: Equatable & Sendable, Output: Sendable>(
  read: @escaping @Sendable (State) -> Inputs,
  inputsDescription: String,
  combine: @escaping @Sendable (Inputs) -> Output
) -> MemoizedSelector<State, Output> {
  let cache = Locked<(inputs: Inputs, computed: Computed<Output>)?>(nil)
  #if DEBUG
    if dynamicEquality(of: Output.self) == nil {
      StatecraftDiagnostics.warn(
        """
        a selector derives \(Output.self), which is not Equatable: subscribers selecting it \
        cannot skip repeats and are notified on every change. Make \(Output.self) Equatable.
        """)
    }
    let checkedStability = Locked(false)
  #endif
  return MemoizedSelector { state, recomputed in
    let inputs = read(state)
    #if DEBUG
      let firstCall = checkedStability.withLock { checked in
        defer { checked = true }
        return !checked
      }
      if firstCall, read(state) != inputs {
        StatecraftDiagnostics.warn(
          """
          an input of a selector (of \(inputsDescription)) returns unequal values for the same \
          state, so the selector recomputes every time. Read stored properties, or build \
          values that compare equal.
          """)
      }
    #endif
    if let cached = cache.withLock({ $0 }), cached.inputs == inputs {
      return cached.computed
    }
    let computed = Computed(value: combine(inputs), number: recomputed())
    cache.withLock { $0 = (inputs, computed) }
    return computed
  }
}

extension Subscription {
  /// Selects a value derived by a memoized selector, shared with the other subscribers that
  /// use it.
  ///
  /// Skipping repeats with `==` (``skipRepeats()``, or the store's automatic skip-repeats) treats
  /// a value the selector did not compute again as a repeat without comparing it.
  ///
  /// - Parameter selector: The selector.
  /// - Returns: A subscription that delivers the derived value.
  /// - Complexity: In a notification round, the selector runs once for all the subscriptions that
  ///   select it; each other subscription compares two integers.
  @inlinable public func select<Output>(_ selector: MemoizedSelector<State, Output>)
    -> Subscription<Output>
  {
    var selection = select { selector._computedInPass($0).value }
    selection._rootSelection = nil  // its skip knows a repeat by the computation
    selection._selectThenSkipEqual = { isEqual in
      Subscription<Output> { downstream in
        let previous = PreviousValue<Output>.make()
        self._attach { state in
          let computed = selector._computedInPass(state)
          // The computation this step saw last: the same value, so a repeat.
          guard previous.exchangeTag(computed.number) != computed.number else { return }
          if let old = previous.exchange(computed.value), isEqual(old, computed.value) { return }
          downstream(computed.value)
        }
      }
    }
    return selection
  }
}
