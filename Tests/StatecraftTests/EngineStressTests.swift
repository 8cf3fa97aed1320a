import Dispatch
import Statecraft
import StatecraftTestSupport
import Testing

/// Everything the one queue carries, at once (issue 28): threads dispatching and batching, a
/// middleware that dispatches a follow-up from inside the chain (the owner lane), a subscriber
/// that dispatches from `newState` (the round lane), the main queue dispatching meanwhile, and,
/// for a main-actor reducer, other threads' work hopping to the main queue (the mainActor lane).
/// Every action is reduced exactly once, each thread's in its order, and the last state
/// delivered is the last state committed.
@MainActor
@Suite(.catchesHangs) struct EngineStressTests {
  struct Count: Sendable, Equatable {
    /// How many actions of each tag were reduced.
    var reduced: [Int: Int] = [:]
    /// Each dispatching thread's sequence numbers, in reduction order.
    var sequences: [Int: [Int]] = [:]
    var total = 0
  }

  /// `tag` counts; a sequenced action also records its thread's order.
  struct Hit: Action {
    let tag: Int
    var thread = -1
    var sequence = -1
  }

  nonisolated static let followUpTag = 100
  nonisolated static let fromSubscriberTag = 200

  nonisolated static func reduce(_ state: inout Count, _ action: any Action) {
    guard let hit = action as? Hit else { return }
    state.reduced[hit.tag, default: 0] += 1
    state.total += 1
    if hit.thread >= 0 { state.sequences[hit.thread, default: []].append(hit.sequence) }
  }

  @MainActor static func reduceOnMain(_ state: inout Count, _ action: any Action) {
    reduce(&state, action)
  }

  /// Dispatches a follow-up for every tenth action a thread sends.
  nonisolated static let followUps: Middleware<Count> = { dispatch, _ in
    { next in
      { action in
        next(action)
        if let hit = action as? Hit, hit.thread >= 0, hit.sequence % 10 == 0 {
          dispatch(Hit(tag: followUpTag))
        }
      }
    }
  }

  final class Watcher: StoreSubscriber {
    var totals: [Int] = []
    var store: Store<Count>?
    var dispatchedFromNewState = 0

    func newState(state: Int) {
      if let last = totals.last, state < last {
        Issue.record("total went back: \(last) → \(state)")
      }
      totals.append(state)
      // A subscriber that dispatches, a bounded number of times.
      if state % 97 == 0, dispatchedFromNewState < 20 {
        dispatchedFromNewState += 1
        store?.dispatch(Hit(tag: fromSubscriberTag))
      }
    }
  }

  nonisolated static let threads = 4
  nonisolated static let perThread = 1_500

  private func run(_ store: Store<Count>) async {
    let watcher = Watcher()
    watcher.store = store
    store.subscribe(watcher) { $0.select(\.total) }
    async let burst: Void = runOnThreads(Self.threads) { thread in
      var sequence = 0
      while sequence < Self.perThread {
        if sequence % 50 == 25 {
          // A batch of three, in order.
          let first = sequence
          store.batch {
            for offset in 0..<3 {
              store.dispatch(Hit(tag: thread, thread: thread, sequence: first + offset))
            }
          }
          sequence += 3
        } else {
          store.dispatch(Hit(tag: thread, thread: thread, sequence: sequence))
          sequence += 1
        }
      }
    }
    for _ in 0..<300 {
      store.dispatch(Hit(tag: 300))
      await Task.yield()
    }
    await burst
    let followUps = Self.threads * Self.perThread / 10
    let expected = Self.threads * Self.perThread + followUps + 300
    await waitUntil {
      store.state.total == expected + watcher.dispatchedFromNewState
        && watcher.totals.last == store.state.total
    }
    let state = store.state
    for thread in 0..<Self.threads {
      #expect(state.reduced[thread] == Self.perThread)
      let sequence = state.sequences[thread] ?? []
      let firstOutOfOrder = zip(sequence, 0...).first { $0.0 != $0.1 }.map { $0.0 }
      #expect(
        sequence.count == Self.perThread && firstOutOfOrder == nil,
        "thread \(thread): \(sequence.count) reduced, first out of order: \(firstOutOfOrder ?? -1)")
    }
    #expect(state.reduced[Self.followUpTag] == followUps)
    #expect(state.reduced[300] == 300)
    #expect(state.reduced[Self.fromSubscriberTag, default: 0] == watcher.dispatchedFromNewState)
    #expect(
      watcher.dispatchedFromNewState > 0, "no subscriber dispatched: the round lane went unused")
    #expect(state.total == expected + watcher.dispatchedFromNewState)
    #expect(watcher.totals.last == state.total, "the last state delivered is the last committed")
    withExtendedLifetime(watcher) {}
  }

  @Test func aStoreWithMiddlewareUnderEveryKindOfTraffic() async {
    await run(Store(reducer: Self.reduce, state: Count(), middleware: [Self.followUps]))
  }

  @Test func aMainActorStoreUnderEveryKindOfTraffic() async {
    await run(Store(reducer: Self.reduceOnMain, state: Count(), middleware: [Self.followUps]))
  }
}
