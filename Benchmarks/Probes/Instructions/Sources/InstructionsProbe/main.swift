// One function per row, each running `count` operations; `Benchmarks/instructions` runs the
// probe under callgrind twice per row (`count` 1,000 and 2,000) and divides the difference.
import Dispatch
import Statecraft

struct Tick: Action {}

struct Fields: Equatable, Sendable {
  var count = 0
  var other = 0
}

func countReducer(action: any Action, state: Int?) -> Int { (state ?? 0) + 1 }

func fieldsReducer(action: any Action, state: Fields?) -> Fields {
  var state = state ?? Fields()
  state.count += 1
  return state
}

@MainActor func mainActorReducer(action: any Action, state: Int?) -> Int { (state ?? 0) + 1 }

final class View: StoreSubscriber {
  var shown = 0
  func newState(state: Int) { shown = state }
}

let passThrough: Middleware<Int> = { _, _ in { next in { action in next(action) } } }

@inline(never) func rowA(_ count: Int) {
  let store = Store<Int>(reducer: countReducer, state: 0)
  for _ in 0..<count { store.dispatch(Tick()) }
}

@inline(never) func rowD(_ count: Int) {
  let store = Store<Int>(
    reducer: countReducer, state: 0, middleware: Array(repeating: passThrough, count: 10))
  for _ in 0..<count { store.dispatch(Tick()) }
}

@inline(never) @MainActor func rowM(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let view = View()
  store.subscribe(view) { $0.select(\.count) }
  for _ in 0..<count { store.dispatch(Tick()) }
  store.unsubscribe(view)
}

/// Row c's shape at 100: every subscriber object notified on each dispatch.
@inline(never) @MainActor func rowFanOut(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let views = (0..<100).map { _ in View() }
  for view in views { store.subscribe(view) { $0.select(\.count) } }
  for _ in 0..<count { store.dispatch(Tick()) }
  withExtendedLifetime(views) {}
}

/// The same with closure subscriptions (tokens).
@inline(never) @MainActor func rowFanOutTokens(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let view = View()
  let tokens = (0..<100).map { _ in
    store.subscribe({ $0.select(\.count) }, receive: { view.shown = $0 })
  }
  for _ in 0..<count { store.dispatch(Tick()) }
  withExtendedLifetime(tokens) {}
}

/// Subscriptions that end themselves during a round, in each of its phases and for each shape.
///
/// A round runs each subscription's steps borrowed, so their release must wait for the first
/// phase, and the second must keep what it calls alive. Not an instruction row:
/// `Benchmarks/instructions --memcheck` runs it optimized under valgrind's memcheck, which sees an
/// object freed while it runs (a debug build retains around each call what this leaves borrowed).
@inline(never) @MainActor func rowCancelDuringRound(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let scope = store.scope(\.count)
  var tokens: [SubscriptionToken?] = []
  var views: [EndingView] = []
  for index in 0..<count {
    let label = String(index)  // something the closures capture and read after the cancel
    let first = tokens.count
    tokens.append(contentsOf: [SubscriptionToken?](repeating: nil, count: 5))
    // In the first phase: a selector, at the root and in a scope.
    tokens[first] = store.subscribe(
      {
        $0.select {
          tokens[first]?.cancel() ?? ()
          return $0.count + label.utf8.count
        }
      },
      receive: { _ in })
    tokens[first + 1] = scope.subscribe(
      {
        $0.select {
          tokens[first + 1]?.cancel() ?? ()
          return $0 + label.utf8.count
        }
      },
      receive: { _ in })
    // Built from steps (`only(when:)`): in its predicate, and in the second phase.
    tokens[first + 2] = store.subscribe(
      {
        $0.select(\.count).only { _, _ in
          tokens[first + 2]?.cancel() ?? ()
          return !label.isEmpty
        }
      },
      receive: { _ in })
    tokens[first + 3] = store.subscribe(
      { $0.select(\.count).only { _, _ in true } },
      receive: { _ in
        tokens[first + 3]?.cancel() ?? ()
        blackHole(label)
      })
    // In the second phase: a closure, and a subscriber object that unsubscribes.
    tokens[first + 4] = store.subscribe(
      { $0.select(\.count) },
      receive: { _ in
        tokens[first + 4]?.cancel() ?? ()
        blackHole(label)
      })
    let view = EndingView(store)
    store.subscribe(view) { $0.select(\.count) }
    views.append(view)
  }
  store.dispatch(Tick())
  withExtendedLifetime((tokens, views)) {}
}

/// A subscriber that unsubscribes when it receives its second state.
final class EndingView: StoreSubscriber {
  let store: Store<Fields>
  var received = 0
  init(_ store: Store<Fields>) { self.store = store }
  func newState(state: Int) {
    received += 1
    if received == 2 { store.unsubscribe(self) }
  }
}

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

@inline(never) @MainActor func rowM100(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let views = (0..<100).map { _ in View() }
  for (index, view) in views.enumerated() {
    if index == 0 {
      store.subscribe(view) { $0.select(\.count) }
    } else {
      store.subscribe(view) { $0.select(\.other) }
    }
  }
  for _ in 0..<count { store.dispatch(Tick()) }
}

@inline(never) @MainActor func rowMainActorReducer(_ count: Int) {
  let store = Store<Int>(reducer: mainActorReducer, state: nil)
  let view = View()
  store.subscribe(view)
  for _ in 0..<count { store.dispatch(Tick()) }
  store.unsubscribe(view)
}

@inline(never) @MainActor func rowScope(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let scope = store.scope(\.other)
  let view = View()
  scope.subscribe(view)
  for _ in 0..<count { store.dispatch(Tick()) }
  scope.unsubscribe(view)
}

@inline(never) @MainActor func rowThunk(_ count: Int) {
  let store = Store<Int>(reducer: countReducer, state: 0)
  for _ in 0..<count {
    store.dispatch(Thunk<Int> { dispatch, _ in dispatch(Tick()) })
  }
}

/// A thunk whose body does not suspend, dispatched and awaited from a task: ReSwift-Thunk's shape.
@inline(never) func rowThunkAwaited(_ count: Int) {
  let store = Store<Int>(reducer: countReducer, state: 0)
  let thunk = Thunk<Int> { dispatch, _ in dispatch(Tick()) }
  fromTask { for _ in 0..<count { try? await store.dispatch(thunk).value } }
}

/// A thunk with an `async` body that dispatches one action, dispatched and awaited from a task.
@inline(never) func rowAsyncThunk(_ count: Int) {
  let store = Store<Int>(reducer: countReducer, state: 0)
  let thunk = Thunk<Int> { context in context.dispatch(Tick()) }
  fromTask { for _ in 0..<count { try? await store.dispatch(thunk).value } }
}

/// What `asyncThunk` costs at least: a task per run, started with `Task.immediate` and awaited.
@inline(never) func rowTaskFloor(_ count: Int) {
  if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
    fromTask { for index in 0..<count { _ = await Task.immediate { index }.value } }
  }
}

/// The same task started by a function the optimizer does not inline, as a library starts one:
/// `Task.immediate` is then not inlined either, and pushes its `nil` executor preference as a
/// record on the task, which the task drops when it ends (Swift 6.3).
@inline(never) func startImmediately(_ index: Int) -> Task<Int, Never> {
  if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
    return Task.immediate { index }
  }
  return Task { index }
}

@inline(never) func rowTaskFloorCalled(_ count: Int) {
  fromTask { for index in 0..<count { _ = await startImmediately(index).value } }
}

/// An `AsyncThunk` with its lifecycle actions, dispatched and awaited from a task.
@inline(never) func rowAsyncThunkLifecycle(_ count: Int) {
  let store = Store<Int>(reducer: countReducer, state: 0)
  let thunk = AsyncThunk<Int, Int>("row") { context in
    context.dispatch(Tick())
    return 1
  }
  fromTask { for _ in 0..<count { _ = try? await store.dispatch(thunk).value } }
}

/// Runs `body` in a task and waits for it on this thread, which parks on a semaphore rather than
/// in `dispatchMain()` (see Benchmarks/README.md, "Profiling with callgrind").
func fromTask(_ body: @escaping @Sendable () async -> Void) {
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    await body()
    done.signal()
  }
  done.wait()
}

@inline(never) @MainActor func rowSubscribe(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let view = View()
  for _ in 0..<count {
    store.subscribe(view) { $0.select(\.count) }
    store.unsubscribe(view)
  }
}

/// Subscribing to and unsubscribing from a scope with no other subscriber: each pair registers the
/// scope's node in the root and removes it.
@inline(never) @MainActor func rowScopeSubscribe(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let scope = store.scope(\.other)
  let view = View()
  for _ in 0..<count {
    scope.subscribe(view)
    scope.unsubscribe(view)
  }
}

@inline(never) @MainActor func rowSubscribeAmongMany(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let views = (0..<10_000).map { _ in View() }
  for view in views { store.subscribe(view) { $0.select(\.other) } }
  let view = View()
  store.dispatch(Tick())
  for _ in 0..<count {
    store.subscribe(view) { $0.select(\.count) }
    store.dispatch(Tick())
    store.unsubscribe(view)
    store.dispatch(Tick())
  }
  withExtendedLifetime(views) {}
}

@inline(never) func rowBackground(_ count: Int) {
  let store = Store<Fields>(reducer: fieldsReducer, state: nil)
  let done = DispatchSemaphore(value: 0)
  DispatchQueue.global().async {
    for _ in 0..<count { store.dispatch(Tick()) }
    done.signal()
  }
  done.wait()
}

let arguments = CommandLine.arguments
let row = arguments.count > 1 ? arguments[1] : "a"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
MainActor.assumeIsolated {
  switch row {
  case "a": rowA(count)
  case "d": rowD(count)
  case "m": rowM(count)
  case "m100": rowM100(count)
  case "fanOut": rowFanOut(count)
  case "fanOutTokens": rowFanOutTokens(count)
  case "cancelDuringRound": rowCancelDuringRound(count)
  case "mainActor": rowMainActorReducer(count)
  case "scope": rowScope(count)
  case "thunk": rowThunk(count)
  case "thunkAwaited": rowThunkAwaited(count)
  case "asyncThunk": rowAsyncThunk(count)
  case "asyncThunkLifecycle": rowAsyncThunkLifecycle(count)
  case "taskFloor": rowTaskFloor(count)
  case "taskFloorCalled": rowTaskFloorCalled(count)
  case "subscribe": rowSubscribe(count)
  case "scopeSubscribe": rowScopeSubscribe(count)
  case "subscribeAmongMany": rowSubscribeAmongMany(count)
  case "background": rowBackground(count)
  default: fatalError("unknown row \(row)")
  }
}
