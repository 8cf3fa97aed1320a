/// A description of something that happened, dispatched to a ``Store`` to change its state.
///
/// Actions are plain values, usually structs or enums. They are `Sendable` because they may be
/// dispatched from any thread and travel through middleware to the reducer.
///
/// ```swift
/// struct SetFilms: Action { let films: [Film] }
/// enum CounterAction: Action { case increment, decrement }
///
/// mainStore.dispatch(CounterAction.increment)
/// ```
public protocol Action: Sendable {}

/// The action a ``Store`` dispatches when it is created without an initial state.
///
/// A store created with `state: nil` dispatches `StatecraftInit` through its middleware, so the
/// reducer is first called with a `nil` state and returns the initial one. Reducers usually need
/// not mention it: they return their initial state for any action when the state is `nil`.
public struct StatecraftInit: Action {
  /// Creates the init action.
  /// - Complexity: O(1).
  public init() {}
}

/// A marker for app state types, kept for code that moves over from ReSwift, which deprecates it
/// too.
///
/// Statecraft needs no marker: any `Sendable` type can be a store's state. The protocol requires
/// nothing, not even `Sendable`: in a target with default main-actor isolation, a state type
/// that is `Sendable` only through a protocol it conforms to gets an `Equatable` conformance
/// isolated to the main actor, which the store cannot use (`main actor-isolated conformance of
/// 'Film' to 'Equatable' cannot be used in nonisolated context`).
@available(
  *, deprecated,
  message: "Conforming your state to StateType is not needed; remove the conformance."
)
public protocol StateType {}
