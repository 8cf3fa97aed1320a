import Dispatch
import Foundation
import Statecraft

// C14, measured (Benchmarks/README.md): a background thread dispatches for 2 s while 100 subscribers listen; a heartbeat
// re-posts itself on the main queue, so the longest gap between beats is the longest time the
// main queue was held. The first and last subscriber time each round.
struct Increment: Action {}
final class View: StoreSubscriber {
  let onState: (Int) -> Void
  init(_ onState: @escaping (Int) -> Void) { self.onState = onState }
  func newState(state: Int) { onState(state) }
}
nonisolated(unsafe) var maxGap: Double = 0
nonisolated(unsafe) var maxRound: Double = 0
nonisolated(unsafe) var rounds = 0
nonisolated(unsafe) var roundStart: Double = 0
nonisolated(unsafe) var lastBeat: Double = 0
nonisolated(unsafe) var running = true
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }
let store = Store<Int>(
  reducer: { action, state in (state ?? 0) + (action is Increment ? 1 : 0) }, state: 0)
nonisolated(unsafe) var views: [View] = []
DispatchQueue.main.async {
  MainActor.assumeIsolated {
    for index in 0..<100 {
      let view = View { _ in
        if index == 0 {
          roundStart = now()
          rounds += 1
        }
        if index == 99 { maxRound = max(maxRound, now() - roundStart) }
      }
      views.append(view)
      store.subscribe(view)
    }
  }
  lastBeat = now()
  func beat() {
    let t = now()
    maxGap = max(maxGap, t - lastBeat)
    lastBeat = t
    if running { DispatchQueue.main.async { beat() } }
  }
  beat()
  Thread.detachNewThread {
    let end = now() + 2_000
    var count = 0
    while now() < end {
      store.dispatch(Increment())
      count += 1
    }
    DispatchQueue.main.async {
      running = false
      print(
        "dispatched \(count) in 2 s; rounds \(rounds); longest round \(String(format: "%.3f", maxRound)) ms; longest main-queue block \(String(format: "%.3f", maxGap)) ms"
      )
      exit(0)
    }
  }
}
dispatchMain()
