import Dispatch
import StatecraftPrimitives

/// The engine of a scope: no state, reducer, middleware, queue or rounds of its own.
///
/// Its state is the root's committed state read through the scope's key path, and its actions go
/// to the root. Its subscriptions are fed by the root's rounds: while it has any, the scope has one
/// subscription in the root (its *node*) that selects the slice and skips repeats, and that runs
/// the scope's subscriptions in the root's two phases, at the node's place in the root's order. A
/// change outside the slice therefore costs the root one comparison, however many subscribers the
/// scope has.
///
/// Lifetimes: the ``Store`` holds its scope engine; the root's registry holds the node, and the node
/// holds the scope engine, while the scope has subscriptions; the scope engine holds its root weakly.
@usableFromInline
final class ScopeCore<Slice: Sendable>: StoreEngine, SubscriptionHost {
  @usableFromInline let _access: ScopeAccess<Slice>
  /// What the scope needs of its root that does not depend on the root's state type.
  weak let root: (any ScopeRoot)?
  @usableFromInline
  let automaticallySkipsRepeats: Bool
  let books = Locked(ScopeBooks<Slice>())
  /// The scope's subscriptions as the root's rounds feed them; touched only on the main queue,
  /// inside the root's rounds or by a subscribe there.
  @exclusivity(unchecked) nonisolated(unsafe) var pass = Pass<Slice>()

  init(access: ScopeAccess<Slice>, root: any ScopeRoot) {
    _access = access
    self.root = root
    automaticallySkipsRepeats = root.automaticallySkipsRepeats
  }

  deinit {
    pass.deallocate()
    // A token may keep its entry past the scope: its closure goes with the scope.
    for entry in books.withLock({ $0.registry.removeAll() }) { entry.releaseSteps() }
  }

  /// Sends `action` to the root, through its middleware, as the root's own middleware would.
  @usableFromInline
  func dispatch(_ action: any Action) {
    root?.dispatchFromMiddleware(action)
  }

  /// The root's committed state's slice and version; `nil` once the root is gone.
  var snapshot: (state: Slice, version: UInt64)? {
    _access.read()
  }

  @usableFromInline
  var currentState: Slice {
    guard let state = _access.read()?.state else { Misuse.noState() }
    return state
  }

  @usableFromInline
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    root?.checkNotReducing(call())
  }

  @usableFromInline
  func dispatchFromGenericCode(_ action: any Action) {
    dispatch(action)
  }

  @usableFromInline
  var stateFromGenericCode: Slice? { snapshot?.state }
  @usableFromInline
  var isTurnHeld: Bool { root?.isTurnHeld ?? false }
  @usableFromInline
  var commitObservers: (any CommitObserving)? { root?.ownCommitObservers }

  /// A scope's batch is one of its root's.
  @usableFromInline
  func batch(_ body: () -> Void) {
    checkNotReducing(.method("batch"))
    if let root { root.batch(body) } else { body() }
  }

  /// A scope has no reducer: its root's middleware and reducer take the action.
  @usableFromInline
  func reduceSkippingMiddleware(_ action: any Action) {
    dispatch(action)
  }

  @usableFromInline
  func scope<Part: Sendable>(_ keyPath: KeyPath<Slice, Part> & Sendable) -> ScopeCore<Part> {
    guard let root else { Misuse.noState() }
    return ScopeCore<Part>(access: _access.appending(keyPath), root: root)
  }

  // MARK: Middleware: a scope has none

  @usableFromInline
  var middleware: [Middleware<Slice>] { [] }

  /// Setting middleware on a scope stops the program.
  @usableFromInline
  func setMiddleware(_ middleware: [Middleware<Slice>]) {
    checkNotReducing(.method("middleware"))
    if !middleware.isEmpty { Misuse.middlewareOnAScope(Slice.self) }
  }

  /// Replacing a scope's dispatch function stops the program.
  @usableFromInline
  func setDispatchFunction(_ function: DispatchFunction?) {
    checkNotReducing(.method("dispatchFunction"))
    if function != nil { Misuse.middlewareOnAScope(Slice.self) }
  }

  // MARK: Subscriptions (the flow is Registration.swift's)

  /// Registers a subscriber object's subscription and delivers the current slice to it.
  @MainActor
  @usableFromInline
  func register(_ entry: SubscriptionEntry<Slice>) {
    add(entry)
  }

  /// Registers a closure subscription and returns the token that ends it.
  @MainActor
  @usableFromInline
  func registerToken(_ entry: SubscriptionEntry<Slice>) -> SubscriptionToken {
    add(entry)
    return token(for: entry)
  }

  @usableFromInline
  func removeSubscription(of owner: ObjectIdentifier) {
    remove(owner: owner)
  }

  /// The first subscription registers the node in the root, before the slice is read.
  @usableFromInline
  @MainActor
  func countAdded() {
    let node = books.withLock { books -> SubscriptionStatus? in
      books.count += 1
      guard books.node == nil else { return nil }
      books.node = makeNode()
      return books.node
    }
    if let node { _access.register(node) }
  }

  /// The last subscription removes the node from the root.
  @usableFromInline
  func countRemoved() {
    let node = books.withLock { books -> SubscriptionStatus? in
      books.count -= 1
      guard books.count == 0, let node = books.node else { return nil }
      books.node = nil
      return node
    }
    if let node {
      // Marked first: a node a subscribe is still attaching is then found gone by a round.
      node.markGone()
      root?.removeSubscription(status: node)
    }
  }

  @usableFromInline
  var subscribedState: (state: Slice, version: UInt64)? { _access.read() }

  @usableFromInline
  func withRegistry<Result>(_ body: (inout Registry<Slice>) -> Result) -> Result {
    books.withLock { body(&$0.registry) }
  }

  /// Drops the pass's copy, unless a round runs.
  ///
  /// During a round the node's second phase may be pending, on the entries of its first: the
  /// registry's append copies them then.
  @usableFromInline
  func forgetRegistryCopy() {
    if !(root?.isRoundRunning ?? false) { pass.forget() }
  }

  /// Makes room in the pass, unless a round runs: its pending second phase reads the buffer.
  @usableFromInline
  func reserveHeld(_ count: Int) {
    if !(root?.isRoundRunning ?? false) { pass.reserveHeld(count) }
  }

  @usableFromInline
  @MainActor
  func deliverFirst(_ deliver: () -> Void) {
    root?.deliverFirst(deliver)
  }

  /// Makes the node, the root's entry for this scope: a subscription whose steps select the
  /// slice, skip its repeats and run the scope's subscriptions' first phase, and whose delivery
  /// runs their second.
  ///
  /// The slice's `==` is looked up here, on the main actor, where the node's steps run: an
  /// `Equatable` conformance isolated to the main actor (the default in an app target with
  /// default main-actor isolation) serves there too. Without one, every state the root delivers
  /// runs the scope's subscriptions' steps, which skip their own repeats.
  @MainActor
  private func makeNode() -> SubscriptionStatus {
    let previous = PreviousValue<Slice>.make()
    let repeats = dynamicEquality(of: Slice.self) ?? { _, _ in false }
    return _access.makeNode(
      { [self] slice in
        // The first slice is the one the node starts from; the subscriptions start from it or a
        // newer one.
        guard let old = previous.exchange(slice), !repeats(old, slice) else { return false }
        return select(slice, version: root?.deliveringVersion ?? 0)
      },
      // Weakly: the node's entry keeps its delivery until the root's registry compacts.
      { [weak self] in self?.deliverHeld() })
  }

  /// The first phase of the scope's subscriptions, inside the root's: runs their steps on
  /// `slice`.
  ///
  /// Returns whether any holds a value for the second.
  nonisolated func select(_ slice: Slice, version: UInt64) -> Bool {
    let generation = books.withLock { $0.registry.generation }
    if generation != pass.entriesGeneration {
      pass.refresh(generation: generation) {
        books.withLock { ($0.registry._entries, $0.registry._addresses) }
      }
    }
    return pass.select(slice, version: version)
  }

  /// The second phase of the scope's subscriptions, inside the root's.
  nonisolated func deliverHeld() {
    pass.deliverHeld { remove($0) }
  }

  /// The subscriptions counted as standing, and the entries the registry keeps; for tests.
  @usableFromInline
  var subscriptionCounts: (standing: Int, registered: Int) {
    books.withLock { ($0.count, $0.registry._entries.count) }
  }
}

/// What a scope keeps under its lock, a leaf: its subscriptions, their count, and its node in the
/// root while it has any.
struct ScopeBooks<Slice: Sendable>: Sendable {
  var registry = Registry<Slice>(words: nil)
  /// The subscriptions standing, and those being added; the node is registered while it is not
  /// zero.
  var count = 0
  var node: SubscriptionStatus?
}

/// How a scope reaches its root's state, built where the root's state type is known.
@usableFromInline
struct ScopeAccess<Slice: Sendable>: Sendable {
  /// The slice of the root's committed state and the root's version; `nil` once the root is
  /// gone.
  let read: @Sendable () -> (state: Slice, version: UInt64)?
  /// Makes a subscription of the root, not yet registered, whose steps hand the slice of each
  /// delivered state to the first function, holding when it returns `true`, and whose delivery
  /// calls the second.
  let makeNode:
    @MainActor @Sendable (@escaping (Slice) -> Bool, @escaping () -> Void) -> SubscriptionStatus
  /// Registers in the root a subscription `makeNode` made.
  let register: @MainActor @Sendable (SubscriptionStatus) -> Void

  /// The access to the part of a root store's state at `keyPath`.
  static func root<Root>(
    _ core: StoreCore<Root>, _ keyPath: KeyPath<Root, Slice> & Sendable
  ) -> ScopeAccess {
    let link = RootLink(core, keyPath)
    return ScopeAccess(
      read: { link.read() }, makeNode: { link.makeNode($0, $1) }, register: { link.register($0) })
  }

  /// The access to the part of this slice at `keyPath`: a scope of a scope reads the root too.
  func appending<Part>(_ keyPath: KeyPath<Slice, Part> & Sendable) -> ScopeAccess<Part> {
    let read = read
    let makeNode = makeNode
    return ScopeAccess<Part>(
      read: { read().map { ($0.state[keyPath: keyPath], $0.version) } },
      makeNode: { step, deliverHeld in makeNode({ step($0[keyPath: keyPath]) }, deliverHeld) },
      register: register)
  }
}

/// A scope's link to its root store's engine, held weakly, and the key path to its slice.
final class RootLink<Root: Sendable, Slice: Sendable>: Sendable {
  weak let core: StoreCore<Root>?
  let keyPath: KeyPath<Root, Slice> & Sendable

  init(_ core: StoreCore<Root>, _ keyPath: KeyPath<Root, Slice> & Sendable) {
    self.core = core
    self.keyPath = keyPath
  }

  func read() -> (state: Slice, version: UInt64)? {
    guard let core else { return nil }
    core._reduction.checkNotReducing(.readState)
    return core._reduction.snapshot.map { ($0.state[keyPath: keyPath], $0.version) }
  }

  @MainActor
  func makeNode(
    _ step: @escaping (Slice) -> Bool, _ deliverHeld: @escaping () -> Void
  ) -> SubscriptionStatus {
    let keyPath = keyPath
    let entry = SubscriptionEntry<Root>(owner: nil, deliver: { _ in deliverHeld() })
    // Holds when any of the scope's subscriptions did. A call that captures what it runs: this
    // code is not specialized, and a call that named a generic type (as `StepsCall`'s does)
    // would look it up at run time on every round.
    entry._steps = EntrySteps { _, _, root in step(root[keyPath: keyPath]) }
    return entry
  }

  /// Registers a node `makeNode` made, unless the root is gone.
  @MainActor
  func register(_ node: SubscriptionStatus) {
    core?.register(knownObject(node, as: SubscriptionEntry<Root>.self))
  }
}

/// What a scope needs of its root store's engine that does not depend on the root's state type.
protocol ScopeRoot: AnyObject, Sendable {
  func dispatchFromMiddleware(_ action: any Action)
  func batch(_ body: () -> Void)
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall)
  func removeSubscription(status: SubscriptionStatus)
  /// Runs `deliver`, which hands a new subscription its first state, as a round.
  @MainActor func deliverFirst(_ deliver: () -> Void)
  /// The version of the state the running round delivers; main queue only.
  var deliveringVersion: UInt64 { get }
  var isRoundRunning: Bool { get }
  /// Whether the calling thread runs the root's middleware and reducer.
  var isTurnHeld: Bool { get }
  var ownCommitObservers: any CommitObserving { get }
  var automaticallySkipsRepeats: Bool { get }
}

extension StoreCore: ScopeRoot {
  @usableFromInline
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    _reduction.checkNotReducing(call())
  }

  var deliveringVersion: UInt64 { _mainLoop.deliveringVersion }
  var isRoundRunning: Bool { _words.isRoundRunning }
  var ownCommitObservers: any CommitObserving { _reduction._commitObservers }
  @usableFromInline
  var automaticallySkipsRepeats: Bool { _automaticallySkipsRepeats }
}
