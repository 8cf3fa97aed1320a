import StatecraftPrimitives
import StatecraftTestSupport
import Testing

@testable import Statecraft

/// What one store is made of (issue 28): four locks (state, process, bookkeeping, thunk runner)
/// and one allocation of atomic words, whatever its middleware and subscriptions; debug builds
/// add the development checks' lock, beside the state lock rather than under it.
@MainActor
@Suite(.catchesHangs) struct StoreCensusTests {
  struct Tick: Action {}

  @Test func aStoreHasFourLocksAndOneBufferOfAtomicWords() {
    let passThrough: Middleware<Int> = { _, _ in { next in { action in next(action) } } }
    let store = Store<Int>(
      reducer: { _, state in (state ?? 0) + 1 }, state: 0, middleware: [passThrough])
    let token = store.subscribe({ $0.select { $0 } }, receive: { _ in })
    store.dispatch(Tick())
    var census = Census()
    census.visit(store)
    #if DEBUG
      #expect(census.locks == 5, "locks: \(census.lockTypes.sorted())")
      #expect(census.lockTypes.contains { $0.contains("ReductionChecks") })
    #else
      #expect(census.locks == 4, "locks: \(census.lockTypes.sorted())")
    #endif
    // The store's words alone: a subscription's status word is in its entry.
    #expect(census.atomicWordBuffers == 1)
    withExtendedLifetime(token) {}
  }

  /// A scope has no engine of its own (issue 28): the lock of its registry, its thunk runner's,
  /// and no atomic words; its root's, which it reaches weakly, are not its own.
  @Test func aScopeHasTheLockOfItsRegistryAndNoEngine() {
    struct App: Equatable, Sendable { var count = 0 }
    let store = Store<App>(reducer: { _, state in state ?? App() }, state: App())
    let scope = store.scope(\.count)
    let token = scope.subscribe({ $0.select { $0 } }, receive: { _ in })
    var census = Census(skipping: ["root"])
    census.visit(scope)
    #expect(census.locks == 2, "locks: \(census.lockTypes.sorted())")
    // The census does not look behind a lock: the subscription's status, in the registry, is
    // not counted, so any buffer found would be the scope's own.
    #expect(census.atomicWordBuffers == 0, "a scope has no atomic words of its own")
    withExtendedLifetime(token) {}
  }

  @Test func theStoresWordsAreSixInOneAllocation() {
    let words = StoreWords()
    #expect(words._words.capacity >= 6)
    // Each named word is its own: the last one is the sixth.
    words.signals.store(1, ordering: .relaxed)
    let sixth: AtomicWord<UInt64> = words._words[5]
    #expect(sixth.load(ordering: .relaxed) == 1)
    withExtendedLifetime(words) {}
  }

  /// Walks the objects a store holds, through stored properties (not into closures), counting
  /// each lock and each buffer of atomic words once.
  struct Census {
    var locks = 0
    var lockTypes: [String] = []
    var atomicWordBuffers = 0
    private var seen: Set<ObjectIdentifier> = []
    /// Stored properties not to follow: references to what the visited value does not own.
    let skipping: Set<String>

    init(skipping: Set<String> = []) {
      self.skipping = skipping
    }

    mutating func visit(_ value: Any) {
      let typeName = String(describing: type(of: value))
      let mirror = Mirror(reflecting: value)
      if typeName.hasPrefix("Locked<") || typeName == "AtomicWords" {
        guard let buffer = mirror.children.first(where: { $0.label == "_buffer" })?.value,
          seen.insert(ObjectIdentifier(buffer as AnyObject)).inserted
        else { return }
        if typeName == "AtomicWords" {
          atomicWordBuffers += 1
        } else {
          locks += 1
          lockTypes.append(typeName)
        }
        return
      }
      if mirror.displayStyle == .class {
        guard seen.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
      }
      var current: Mirror? = mirror
      while let level = current {
        for child in level.children where !skipping.contains(child.label ?? "") {
          visit(child.value)
        }
        current = level.superclassMirror
      }
    }
  }
}
