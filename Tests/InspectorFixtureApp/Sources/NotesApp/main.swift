import Dispatch
import Foundation
import NotesCore
import Statecraft
import StatecraftTools

// A command-line notes app: `add TEXT`, `pin N`, `remove N`, `login USER TOKEN`, `state TAG`, `q`;
// and async work: `sync MS` (a newer sync cancels the running one), `sync offline` (fails),
// `search TEXT` (debounced), `wait` (until the thunks started so far ended).
// It prints the state as one line of JSON, `state: {...}`, each time it changes, and
// `now TAG: {...}` when asked with `state TAG`, which tests read.
//   --record FILE        records the session
//   STATECRAFT_INSPECTOR streams it to `inspect --live`, which can move it back in time
//   --bench RATE COUNT   dispatches COUNT actions at RATE a second into four stores, alternating:
//                        one without middleware, one with a middleware that passes actions on,
//                        one whose middleware keeps each action (the least a recorder that can
//                        move back in time does), and this one; prints the time each took

let arguments = Array(CommandLine.arguments.dropFirst())
func value(after flag: String, offset: Int = 1) -> String? {
  guard let index = arguments.firstIndex(of: flag), index + offset < arguments.count else {
    return nil
  }
  return arguments[index + offset]
}

let recorder = try value(after: "--record").map {
  try ActionRecorder<Notebook>(
    file: URL(fileURLWithPath: $0), registry: notesActions, redacting: notesRedaction)
}
let live = LiveInspection<Notebook>.fromEnvironment(
  registry: notesActions, redacting: notesRedaction)
let reducer: Reducer<Notebook> = notesReducer
let store = Store<Notebook>(
  reducer: live?.reducer(reducer) ?? reducer, state: nil,
  middleware: [recorder?.middleware(), live?.middleware()].compactMap { $0 })

func json(_ state: Notebook) -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return (try? encoder.encode(state)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
}

/// Keeps the last `limit` actions, overwriting the oldest: what a store's middleware must do at
/// least to let a tool move the store back in time. Its storage is touched under `lock` only.
final class KeptActions: @unchecked Sendable {
  private let lock = NSLock()
  private var actions: [(any Action)?]
  private var next = 0

  init(limit: Int) {
    actions = Array(repeating: nil, count: limit)
  }

  func keep(_ action: any Action) {
    lock.lock()
    actions[next] = action
    next = next + 1 == actions.count ? 0 : next + 1
    lock.unlock()
  }
}

func finish() -> Never {
  live?.close()
  recorder?.close()
  exit(0)
}

/// The time one dispatch takes in a loop paced at `rate` a second, in nanoseconds, median and
/// mean, for `count` dispatches into `target`.
func paced(_ target: Store<Notebook>, rate: Int, count: Int, from start: Int) -> [UInt64] {
  let period = 1_000_000_000 / UInt64(max(1, rate))
  var next = DispatchTime.now().uptimeNanoseconds
  var times: [UInt64] = []
  times.reserveCapacity(count)
  for step in 0..<count {
    let before = DispatchTime.now().uptimeNanoseconds
    target.dispatch(NoteAction.pin((start + step) % 100))
    times.append(DispatchTime.now().uptimeNanoseconds - before)
    next += period
    let now = DispatchTime.now().uptimeNanoseconds
    if next > now { usleep(UInt32((next - now) / 1_000)) }
  }
  return times
}

if let rate = value(after: "--bench").flatMap(Int.init),
  let count = value(after: "--bench", offset: 2).flatMap(Int.init)
{
  // The same paced loop into a store without middleware, one whose middleware only passes
  // actions on (what any middleware costs), one whose middleware keeps the last 10,000 actions
  // under a lock (the least any recorder that can move back in time does on a dispatch), and
  // this one, alternating in blocks of 500, so that all see the same machine.
  let plain = Store<Notebook>(reducer: notesReducer, state: nil)
  let passing = Store<Notebook>(
    reducer: notesReducer, state: nil, middleware: [{ _, _ in { next in { next($0) } } }])
  let kept = KeptActions(limit: 10_000)
  let keeping = Store<Notebook>(
    reducer: notesReducer, state: nil,
    middleware: [
      { _, _ in
        { next in
          {
            next($0)
            kept.keep($0)
          }
        }
      }
    ])
  let stores = [plain, passing, keeping, store]
  for index in 0..<100 {
    for target in stores { target.dispatch(NoteAction.add("note \(index)")) }
  }
  var times = Array(repeating: [UInt64](), count: stores.count)
  var done = 0
  while done < count {
    let block = min(500, count - done)
    for (position, target) in stores.enumerated() {
      times[position] += paced(target, rate: rate, count: block, from: done)
    }
    done += block
  }
  live?.flush()
  func summary(_ times: [UInt64]) -> String {
    let sorted = times.sorted()
    let mean = Double(times.reduce(0, +)) / Double(max(1, times.count))
    return "median \(sorted[sorted.count / 2]) ns, mean \(Int(mean)) ns"
  }
  func ratio(_ times: [UInt64], to baseline: [UInt64]) -> String {
    String(format: "%.2f", Double(times.reduce(0, +)) / Double(max(1, baseline.reduce(0, +))))
  }
  print("bench: \(count) dispatches at \(rate)/s into each store")
  print("bench: without middleware:        \(summary(times[0]))")
  print("bench: with a passing middleware:  \(summary(times[1]))")
  print("bench: with one keeping actions:   \(summary(times[2]))")
  print("bench: with live inspection:       \(summary(times[3]))")
  print(
    "bench: mean ratio to the store without middleware: passing \(ratio(times[1], to: times[0])), "
      + "keeping \(ratio(times[2], to: times[0])), live \(ratio(times[3], to: times[0])); "
      + "live to keeping \(ratio(times[3], to: times[2]))")
  finish()
}

// Each state the store commits, printed on the main queue.
let token = MainActor.assumeIsolated {
  store.subscribe({ $0.select { $0 } }) { state in
    print("state: \(json(state))")
    fflush(nil)
  }
}

/// The thunks started so far, for `wait`; its list is touched under `lock` only.
final class StartedThunks: @unchecked Sendable {
  private let lock = NSLock()
  private var tasks: [Task<Void, Never>] = []

  func start<Value>(_ thunk: AsyncThunk<Notebook, Value>) {
    let task = store.dispatch(thunk)
    let waiting = Task { _ = try? await task.value }
    lock.lock()
    tasks.append(waiting)
    lock.unlock()
  }

  /// Blocks the calling thread until every thunk started so far ended, however it ended.
  func wait() {
    lock.lock()
    let waiting = tasks
    tasks = []
    lock.unlock()
    let done = DispatchSemaphore(value: 0)
    Task {
      for task in waiting { await task.value }
      done.signal()
    }
    done.wait()
  }
}
let thunks = StartedThunks()

let input = Thread {
  while let line = readLine() {
    let words = line.split(separator: " ", maxSplits: 1).map(String.init)
    switch (words.first ?? "", words.count > 1 ? words[1] : "") {
    case ("add", let text) where !text.isEmpty: store.dispatch(NoteAction.add(text))
    case ("pin", let number): store.dispatch(NoteAction.pin(Int(number) ?? -1))
    case ("remove", let number): store.dispatch(NoteAction.remove(Int(number) ?? -1))
    case ("login", let rest):
      let parts = rest.split(separator: " ").map(String.init)
      store.dispatch(NoteAction.logIn(user: parts.first ?? "", token: parts.last ?? ""))
    case ("sync", "offline"): thunks.start(syncNotes(milliseconds: 5, isOffline: true))
    case ("sync", let milliseconds): thunks.start(syncNotes(milliseconds: Int(milliseconds) ?? 0))
    case ("search", let query): thunks.start(searchNotes(query))
    case ("wait", _):
      thunks.wait()
      continue
    case ("q", _), ("quit", _): break
    case ("state", let request):
      // Answers with the request's tag, so a reader tells the answer from a delivery printed
      // on the main queue meanwhile, which may hold an older state.
      print("now \(request): \(json(store.state))")
      fflush(nil)
      continue
    default:
      print(
        "unknown command \"\(line)\"; commands: add TEXT, pin N, remove N, login USER TOKEN, "
          + "sync MS, sync offline, search TEXT, wait, state TAG, q")
      fflush(nil)
      continue
    }
    if words.first == "q" || words.first == "quit" { break }
  }
  // Ends on the main queue, after the states dispatched so far were printed.
  DispatchQueue.main.async {
    withExtendedLifetime(token) {}
    finish()
  }
}
input.start()
dispatchMain()
