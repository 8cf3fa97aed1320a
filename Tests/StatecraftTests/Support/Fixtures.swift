import Dispatch
import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import Testing

struct TestState: Equatable, Sendable {
  var count = 0
  var label = ""
  var items: [Int] = []
}

struct Increment: Action {}
struct Add: Action { let amount: Int }
struct SetLabel: Action { let label: String }
struct Tagged: Action {
  let thread: Int
  let sequence: Int
}

func testReducer(action: Action, state: TestState?) -> TestState {
  var state = state ?? TestState()
  switch action {
  case is Increment: state.count += 1
  case let action as Add: state.count += action.amount
  case let action as SetLabel: state.label = action.label
  case let action as Tagged: state.items.append(action.thread * 1_000_000 + action.sequence)
  default: break
  }
  return state
}

func makeStore(
  middleware: [Middleware<TestState>] = [],
  automaticallySkipsRepeats: Bool = true
) -> Store<TestState> {
  Store(
    reducer: testReducer, state: TestState(), middleware: middleware,
    automaticallySkipsRepeats: automaticallySkipsRepeats)
}

/// Records every value it receives, and whether it was on the main queue each time.
@MainActor
/// An object a reducer keeps alive, so that a test can tell the store's engine was released.
final class Capture: Sendable {}

/// A store like ``makeStore(middleware:automaticallySkipsRepeats:)`` whose reducer keeps
/// `capture` alive as long as the store's engine lives.
func makeStore(
  capturing capture: Capture, middleware: [Middleware<TestState>] = []
) -> Store<TestState> {
  Store(
    reducer: { action, state in
      withExtendedLifetime(capture) { testReducer(action: action, state: state) }
    },
    state: TestState(), middleware: middleware)
}

final class Recorder<Value>: StoreSubscriber {
  private(set) var values: [Value] = []
  private(set) var allOnMainQueue = true
  var onNewState: ((Value) -> Void)?

  func newState(state: Value) {
    if !MainQueueProbe.isCurrent { allOnMainQueue = false }
    values.append(state)
    onNewState?(state)
  }
}

enum MainQueueProbe {
  private static let key: DispatchSpecificKey<UInt8> = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
  }()

  static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) != nil }
}

/// A thread-safe list, for recording from middleware and background threads.
final class Log<Element: Sendable>: Sendable {
  private let storage = Guarded<[Element]>([])

  func append(_ element: Element) { storage.withLock { $0.append(element) } }
  var elements: [Element] { storage.withLock { $0 } }
}

/// A value behind an `NSLock`, which ThreadSanitizer understands (on Linux it does not see
/// `Synchronization.Mutex`'s ordering).
final class Guarded<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// Starts `count` real threads that wait behind a barrier, then run `body` with their index at
/// the same time. Returns when all have finished.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  let barrier = Barrier()
  let group = DispatchGroup()
  let threads = (0..<count).map { index in
    group.enter()
    return Thread {
      barrier.arrived.add(1, ordering: .acquiringAndReleasing)
      while barrier.arrived.load(ordering: .acquiring) < count {}
      body(index)
      group.leave()
    }
  }
  for thread in threads { thread.start() }
  await withCheckedContinuation { continuation in
    group.notify(queue: .global()) { continuation.resume() }
  }
}

/// Waits on the main actor, letting the main queue run, until `condition` holds; records an
/// issue if it does not within ``Interval/patience`` (a failure bound only).
@MainActor
func waitUntil(
  _ condition: @MainActor () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async {
  let deadline = MonotonicClock.now + Interval.patience.nanoseconds
  while !condition() {
    guard MonotonicClock.now < deadline else {
      Issue.record(
        "The condition did not hold within \(Interval.patience).", sourceLocation: sourceLocation)
      return
    }
    await MonotonicClock.sleep(for: .milliseconds(1))
  }
}

private final class Barrier: Sendable {
  let arrived = TestAtomic<Int>(0)
}

/// Runs `body` on another thread and waits for it without yielding the main queue, so that every
/// state it commits waits for the same round (C5, C13).
///
/// `body` runs on a thread of its own, not a pool's: a pool busy with other tests' work would
/// keep it, and this test's hold on the main queue, waiting for its turn.
@MainActor
func onAnotherThreadWhileHoldingTheMainQueue(_ body: @escaping @Sendable () -> Void) {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  done.wait()
}

/// A pass-through middleware that appends the type name of each action it sees to `log`.
func typeLogger(_ log: Log<String>) -> Middleware<TestState> {
  { _, _ in
    { next in
      { action in
        log.append("\(type(of: action))")
        next(action)
      }
    }
  }
}

/// `Synchronization.Atomic`'s shape over an `NSLock`: `Atomic` needs macOS 15 and iOS 18, above
/// the package's floor, and the lock is visible to ThreadSanitizer. The ordering is ignored: the
/// lock orders everything.
final class TestAtomic<Value: Sendable>: Sendable {
  enum Ordering {
    case relaxed, acquiring, releasing, acquiringAndReleasing, sequentiallyConsistent
  }

  private let value: Guarded<Value>

  init(_ value: Value) { self.value = Guarded(value) }

  func load(ordering: Ordering) -> Value { value.withLock { $0 } }

  func store(_ newValue: Value, ordering: Ordering) { value.withLock { $0 = newValue } }

  func exchange(_ newValue: Value, ordering: Ordering) -> Value {
    value.withLock { value in
      defer { value = newValue }
      return value
    }
  }
}

extension TestAtomic where Value: AdditiveArithmetic {
  @discardableResult
  func add(_ delta: Value, ordering: Ordering) -> (oldValue: Value, newValue: Value) {
    value.withLock { value in
      defer { value += delta }
      return (value, value + delta)
    }
  }
}
