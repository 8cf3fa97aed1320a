// The App module: a view that subscribes in `viewDidLoad`, and dispatches from a detached task,
// a global queue (as a network callback) and a thunk while the main queue is busy.
import Dispatch
import Foundation
import PodcastCore
import Statecraft
import StatecraftTools

final class QueueViewController: StoreSubscriber {
  private(set) var shown: [Episode] = []
  private(set) var deliveries = 0

  func viewDidLoad() {
    mainStore.subscribe(self) { $0.select(\.queue) }
  }

  func newState(state: [Episode]) {
    precondition(isOnMainQueue, "a main-actor subscriber was called off the main queue")
    shown = state
    deliveries += 1
  }

  deinit {
    mainStore.unsubscribe(self)
  }
}

// What this module sees of Core's top-level reducer. With Swift 6.2 and 6.3 a top-level
// function's default main-actor isolation does not cross a module boundary, so a store made
// here from `playerReducer` would reduce on the dispatching thread (Docs/ConcurrencyModel.md,
// "Two modules"); the store is made in Core, where the isolation is seen.
if CommandLine.arguments.contains("--isolation-seen-from-app") {
  let reducer: @isolated(any) @Sendable (any Action, PlayerState?) -> PlayerState = playerReducer
  print(
    "isolation of PodcastCore.playerReducer seen from PodcastApp: \(reducer.isolation.map { "\($0)" } ?? "none")"
  )
  exit(0)
}

// `--record FILE`: a short session of a store of the app's state, recorded as the inspector reads
// it; `.ci/two-module-app` has `inspect --swift-test` write a test of it.
if let flag = CommandLine.arguments.firstIndex(of: "--record"),
  CommandLine.arguments.indices.contains(flag + 1)
{
  let file = URL(fileURLWithPath: CommandLine.arguments[flag + 1])
  do {
    let recorder = try ActionRecorder<PlayerState>(file: file, registry: playerActions)
    let store = Store<PlayerState>(
      reducer: playerReducer, state: PlayerState(historySize: 8),
      middleware: [recorder.middleware()])
    for id in 1...3 { store.dispatch(PlayerAction.enqueue(Episode(id: id), sequence: id)) }
    store.dispatch(PlayerAction.remove(1, sequence: 4))
    recorder.close()
    print("recorded \(store.state.reduced.count) actions to \(file.path)")
    exit(0)
  } catch {
    print("cannot record: \(error)")
    exit(1)
  }
}

let perSource = 200
let view = QueueViewController()
view.viewDidLoad()

let sources = DispatchGroup()
sources.enter()
Task.detached {
  for index in 0..<perSource {
    mainStore.dispatch(PlayerAction.enqueue(Episode(id: index), sequence: index))
  }
  sources.leave()
}
sources.enter()
DispatchQueue.global().async {
  for index in 0..<perSource {
    let sequence = perSource + index
    mainStore.dispatch(PlayerAction.enqueue(Episode(id: sequence), sequence: sequence))
    mainStore.dispatch(PlayerAction.remove(sequence, sequence: -sequence))
  }
  sources.leave()
}
sources.enter()
Task.detached {
  let episodes = (0..<perSource).map { Episode(id: 2 * perSource + $0) }
  _ = try? await mainStore.dispatch(refreshQueue(episodes: episodes, firstSequence: 2 * perSource))
    .value
  sources.leave()
}

// The main queue is busy while they dispatch.
let busyUntil = Date().addingTimeInterval(0.2)
while Date() < busyUntil {}

sources.notify(queue: .main) {
  // What was dispatched from other threads is reduced on the main queue, in the order each
  // source dispatched it; the notification of the last state follows on the main queue.
  DispatchQueue.main.async {
    let state = mainStore.state
    var failures: [String] = []
    if state.reducedOffMain != 0 {
      failures.append("\(state.reducedOffMain) actions were reduced off the main thread")
    }
    let detached = state.reduced.filter { (0..<perSource).contains($0) }
    let global = state.reduced.filter { (perSource..<2 * perSource).contains($0) }
    let thunk = state.reduced.filter { $0 >= 2 * perSource }
    if detached != Array(0..<perSource) {
      failures.append("the detached task's actions are out of order or lost")
    }
    if global != Array(perSource..<2 * perSource) {
      failures.append("the global queue's actions are out of order or lost")
    }
    if thunk != Array(2 * perSource..<3 * perSource) {
      failures.append("the thunk's actions are out of order or lost")
    }
    if state.reduced.count != 4 * perSource {
      failures.append("\(state.reduced.count) actions reduced, not \(4 * perSource)")
    }
    if state.queue.count != 2 * perSource {
      failures.append("the queue holds \(state.queue.count) episodes, not \(2 * perSource)")
    }
    if view.shown != state.queue {
      failures.append("the view shows a queue other than the store's")
    }
    if failures.isEmpty {
      print(
        "two-module app: \(state.reduced.count) actions from three sources reduced on the main queue, in order; \(view.deliveries) deliveries"
      )
      exit(0)
    }
    print("two-module app FAILED:\n" + failures.joined(separator: "\n"))
    exit(1)
  }
}
dispatchMain()
