/// A pure function that returns the next state for an action: ReSwift's reducer shape.
///
/// The store calls the reducer once for each action, one action at a time. A reducer must not
/// dispatch or read the store: follow-up work belongs in a middleware or a thunk. Reducers are
/// plain functions, so unit tests call them directly.
///
/// ```swift
/// func counterReducer(action: Action, state: CounterState?) -> CounterState {
///   var state = state ?? CounterState()
///   switch action {
///   case CounterAction.increment: state.count += 1
///   case CounterAction.decrement: state.count -= 1
///   default: break
///   }
///   return state
/// }
/// ```
///
/// The store hands over its only reference to the state (the parameter is `consuming`), so a
/// reducer closure that makes a mutable copy and changes one element of a large array does not
/// copy the array in optimized builds. In debug builds, only a closure that writes its
/// parameter's type out moves it: `{ (action: any Action, state: consuming AppState?) -> AppState in … }`.
/// A named function with a borrowed parameter, like the one above, keeps the caller's reference
/// alive while it runs; for large states declare the parameter `consuming` and unwrap it with
/// `(consume state)!`, or use an ``InPlaceReducer``.
@preconcurrency public typealias Reducer<State> =
  @Sendable (_ action: any Action, _ state: consuming State?) ->
  State

/// A function that changes the state in place for an action.
///
/// Use this form for large states: the store passes its own storage, so changing one element of
/// an array with 100,000 elements costs the same as changing one of ten.
///
/// ```swift
/// let store = Store<Inventory>(
///   reducer: { (state: inout Inventory, action: Action) in
///     if let action = action as? SetStock { state.items[action.index].stock = action.stock }
///   },
///   state: Inventory()
/// )
/// ```
@preconcurrency public typealias InPlaceReducer<State> =
  @Sendable (_ state: inout State, _ action: any Action) ->
  Void

/// A main-actor-isolated function that changes the state in place for an action.
///
/// In a target built with `.defaultIsolation(MainActor.self)`, reducer functions are main-actor
/// isolated, and `combineReducers`, `scopedReducer` and `inPlace` return this type for them. A
/// store created with one reduces on the main queue (C17 in the concurrency model).
public typealias MainActorInPlaceReducer<State> =
  @MainActor (_ state: inout State, _ action: any Action) -> Void
