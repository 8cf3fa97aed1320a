/// Combines reducers into one that runs each of them, in order, for every action.
///
/// Each reducer usually owns a part of the state (see `scopedReducer(_:_:)`):
///
/// ```swift
/// let appReducer = combineReducers(
///   scopedReducer(\AppState.films, filmsReducer),      // (inout FilmsState, FilmsAction)
///   scopedReducer(\AppState.profile, profileReducer),  // (inout Profile, ProfileAction)
///   inPlace(navigationReducer)                         // a ReSwift-shaped reducer
/// )
/// let mainStore = Store(reducer: appReducer, state: AppState())
/// ```
///
/// - Parameter reducers: The reducers, run first to last.
/// - Returns: The combined reducer.
/// - Complexity: O(*n*) per action for *n* reducers.
public func combineReducers<State>(_ reducers: InPlaceReducer<State>...) -> InPlaceReducer<State> {
  { state, action in
    for reducer in reducers { reducer(&state, action) }
  }
}

/// Lifts a reducer of one part of the state and one feature's actions to the whole state.
///
/// The result runs `reduce` only for actions of type `FeatureAction` (an `Action`, or
/// `any Action` for every action), on the part of the state
/// at `keyPath`; other actions and other parts are left alone. The cast is done here, once, so
/// feature reducers switch over their own action enum:
///
/// ```swift
/// enum FilmsAction: Action { case loaded([Film]), clear }
///
/// func filmsReducer(state: inout FilmsState, action: FilmsAction) {
///   switch action {
///   case .loaded(let films): state.films = films
///   case .clear: state.films = []
///   }
/// }
///
/// let reducer: InPlaceReducer<AppState> = scopedReducer(\.films, filmsReducer)
/// ```
///
/// A ReSwift-shaped reducer of the part, which sees every action, as in ReSwift's hand-written
/// `appReducer` that calls `filmsReducer(action: action, state: state?.films)`, goes through
/// ``inPlace(_:)->InPlaceReducer<State>`` first; its `FeatureAction` is then `any Action`:
///
/// ```swift
/// scopedReducer(\.settings, inPlace(settingsReducer))  // (any Action, Settings?) -> Settings
/// ```
///
/// - Parameters:
///   - keyPath: The part of the state the reducer owns.
///   - reduce: The feature's reducer.
/// - Returns: A reducer of the whole state.
/// - Complexity: O(1) per action, plus the slice reducer; the slice is changed in place.
public func scopedReducer<State, Slice, FeatureAction: Sendable>(
  _ keyPath: WritableKeyPath<State, Slice> & Sendable,
  _ reduce: @escaping @Sendable (_ state: inout Slice, _ action: FeatureAction) -> Void
) -> InPlaceReducer<State> {
  { state, action in
    guard let action = action as? FeatureAction else { return }
    reduce(&state[keyPath: keyPath], action)
  }
}

/// Adapts a ReSwift-shaped reducer to the in-place form, to combine it with others.
///
/// - Parameter reducer: A reducer that returns the next state.
/// - Returns: The same reducer, changing the state in place.
/// - Complexity: O(1) to build; each call runs `reducer` once.
public func inPlace<State>(_ reducer: @escaping Reducer<State>) -> InPlaceReducer<State> {
  { state, action in
    state = reducer(action, consume state)
  }
}

// MARK: Main-actor reducers

/// Combines main-actor-isolated reducers, what reducer functions are in a target with default
/// main-actor isolation, into one that runs each of them, in order, for every action.
///
/// Nonisolated reducers may be mixed in. The store that takes the result reduces on the main
/// queue.
///
/// - Parameter reducers: The reducers, run first to last.
/// - Returns: The combined reducer.
/// - Complexity: O(*n*) per action for *n* reducers.
@MainActor
public func combineReducers<State: Sendable>(
  _ reducers: MainActorInPlaceReducer<State>...
) -> MainActorInPlaceReducer<State> {
  // `State: Sendable` tells this overload apart from the nonisolated one: Swift does not count
  // a function type's isolation in an overload's signature.
  { state, action in
    for reducer in reducers { reducer(&state, action) }
  }
}

/// Lifts a main-actor-isolated reducer of one part of the state and one feature's actions to
/// the whole state.
///
/// The main-actor form of `scopedReducer(_:_:)`, for targets with default main-actor isolation,
/// where the key path to a property of a main-actor state is not `Sendable`. A ReSwift-shaped
/// reducer of the part goes through `inPlace(_:)` first, as for the nonisolated form.
///
/// - Parameters:
///   - keyPath: The part of the state the reducer owns.
///   - reduce: The feature's reducer.
/// - Returns: A reducer of the whole state.
/// - Complexity: O(1) per action, plus the slice reducer; the slice is changed in place.
@MainActor
public func scopedReducer<State, Slice, FeatureAction: Sendable>(
  _ keyPath: WritableKeyPath<State, Slice>,
  _ reduce: @escaping @MainActor (_ state: inout Slice, _ action: FeatureAction) -> Void
) -> MainActorInPlaceReducer<State> {
  { state, action in
    guard let action = action as? FeatureAction else { return }
    reduce(&state[keyPath: keyPath], action)
  }
}

/// Adapts a main-actor-isolated reducer of ReSwift's shape to the in-place form, to combine it
/// with others.
///
/// - Parameter reducer: A reducer that returns the next state.
/// - Returns: The same reducer, changing the state in place.
/// - Complexity: O(1) to build; each call runs `reducer` once.
@MainActor
public func inPlace<State>(
  _ reducer: @escaping @MainActor (_ action: any Action, _ state: State?) -> State
) -> MainActorInPlaceReducer<State> {
  { state, action in
    state = reducer(action, state)
  }
}
