import Observation
import Statecraft

/// A SwiftUI-ready view of a store: `@Observable`, and precise about what a view read.
///
/// Read state through it by key path (dynamic member lookup); a view, or any
/// `withObservationTracking` caller, is invalidated only when a value it read changed, not on
/// every change of the store.
///
/// ```swift
/// struct CounterView: View {
///   let model = ObservableStore(mainStore)
///
///   var body: some View {
///     Text("\(model.count)")                 // redrawn only when count changes
///     Button("+") { model.dispatch(CounterAction.increment) }
///   }
/// }
/// ```
///
/// > Important: Values are read on the main actor and are the state last delivered to
/// > subscribers there. Reading ``state`` whole tracks every change.
///
/// Needs the Observation framework: macOS 14, iOS 17, tvOS 17, watchOS 10.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@dynamicMemberLookup
public final class ObservableStore<State: Sendable>: Observable {
  /// The store this observes.
  /// - Complexity: O(1).
  public let store: Store<State>
  private let registrar = ObservationRegistrar()
  private var current: State
  private var readValues: [AnyKeyPath: ReadValue] = [:]
  private var token: SubscriptionToken?

  private struct ReadValue {
    let hasChanged: (State, State) -> Bool
    let willSet: (ObservableStore) -> Void
    let didSet: (ObservableStore) -> Void
  }

  /// Starts observing `store`.
  ///
  /// - Parameter store: The store to observe.
  /// - Complexity: O(1) amortized: one subscription to `store`. Each state the store then
  ///   delivers costs O(k) comparisons for the k parts of the state read so far.
  public init(_ store: Store<State>) {
    self.store = store
    current = store.state
    token = store.subscribe({ $0.select { $0 } }, receive: { [weak self] in self?.update($0) })
  }

  /// The whole state; reading it makes the reader depend on every change.
  /// - Complexity: O(1): one access registration and a copy of the state (a reference count
  ///   for copy-on-write storage).
  public var state: State {
    registrar.access(self, keyPath: \.state)
    return current
  }

  /// A part of the state; reading it makes the reader depend on that part only.
  /// - Complexity: O(1) amortized: one access registration and one dictionary lookup by key path.
  ///   The first read of a key path adds one comparison to each later delivered state.
  public subscript<Value: Equatable>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    let observed: KeyPath<ObservableStore, Value> = \.[dynamicMember: keyPath]
    registrar.access(self, keyPath: observed)
    if readValues[keyPath] == nil {
      readValues[keyPath] = ReadValue(
        hasChanged: { $0[keyPath: keyPath] != $1[keyPath: keyPath] },
        willSet: { $0.registrar.willSet($0, keyPath: observed) },
        didSet: { $0.registrar.didSet($0, keyPath: observed) }
      )
    }
    return current[keyPath: keyPath]
  }

  /// Dispatches an action to the store.
  ///
  /// - Parameter action: The action.
  /// - Complexity: As `Store.dispatch(_:)`; the notification round it runs on the main queue
  ///   includes this object's update, O(k) comparisons for the k parts of the state read so far.
  public func dispatch(_ action: any Action) {
    store.dispatch(action)
  }

  private func update(_ new: State) {
    let old = current
    let changed = readValues.values.filter { $0.hasChanged(old, new) }
    registrar.willSet(self, keyPath: \.state)
    for value in changed { value.willSet(self) }
    current = new
    for value in changed { value.didSet(self) }
    registrar.didSet(self, keyPath: \.state)
  }
}
