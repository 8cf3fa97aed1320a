import Dispatch
import Testing

@testable import Statecraft

/// C7's pacing of the rounds other threads' commits schedule, with a clock the test moves and
/// posts it runs itself: no test here waits for time to pass.
@Suite(.catchesHangs) struct RoundPacingTests {
  @MainActor
  @Test func c7ARoundIsPostedAtOnceWhenNoneStartedInTheLastMillisecond() async {
    let pacing = ManualPacing(now: 5_000_000)
    let (store, recorder) = subscribedStore(pacing)
    await fromAnotherThread { store.dispatch(Increment()) }
    #expect(pacing.delays == [0])
    pacing.runDue()
    #expect(recorder.values == [0, 1])
  }

  @MainActor
  @Test func c7DuringABurstRoundsStartAtMostOnceAMillisecond() async {
    let pacing = ManualPacing(now: 0)
    let (store, recorder) = subscribedStore(pacing)
    await fromAnotherThread { store.dispatch(Increment()) }
    pacing.runDue()  // starts at 0: the next may start at 1 ms

    pacing.now = 300_000
    await fromAnotherThread {
      for _ in 0..<1_000 { store.dispatch(Increment()) }
    }
    #expect(pacing.delays == [0, 700_000], "one post for the burst, due at 1 ms")
    pacing.runDue()
    #expect(recorder.values == [0, 1], "nothing runs before it is due")

    pacing.now = 1_000_000
    pacing.runDue()
    #expect(recorder.values == [0, 1, 1_001], "the newest state, nothing lost")

    pacing.now = 1_200_000  // within a millisecond of the last start again
    await fromAnotherThread { store.dispatch(Increment()) }
    #expect(pacing.delays.last == 800_000)
    pacing.now = 2_000_000
    pacing.runDue()
    #expect(recorder.values == [0, 1, 1_001, 1_002])

    pacing.now = 10_000_000  // quiet for longer than the interval: at once again
    await fromAnotherThread { store.dispatch(Increment()) }
    #expect(pacing.delays.last == 0)
    pacing.runDue()
    #expect(recorder.values.last == 1_003)
    #expect(pacing.pending == 0)
  }

  @MainActor
  @Test func c7ADispatchOnTheMainQueueIsNotPaced() async {
    // C7's synchronous round: paced rounds are only those other threads schedule.
    let pacing = ManualPacing(now: 0)
    let (store, recorder) = subscribedStore(pacing)
    await fromAnotherThread { store.dispatch(Increment()) }
    pacing.runDue()
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1, 2, 3])
    #expect(pacing.delays == [0])
  }

  @MainActor
  @Test func theMainQueuePacingDeliversABurstFromAnotherThread() async {
    // The pacing every store uses, end to end: a burst's newest state arrives.
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    for burst in 1...3 {
      await fromAnotherThread {
        for _ in 0..<1_000 { store.dispatch(Increment()) }
      }
      await waitUntil { recorder.values.last == burst * 1_000 }
      #expect(recorder.values.last == burst * 1_000)
    }
  }

  @MainActor
  private func subscribedStore(_ pacing: ManualPacing) -> (Store<TestState>, Recorder<Int>) {
    let store = Store<TestState>(
      reduce: .returning(testReducer), state: TestState(), middleware: [],
      automaticallySkipsRepeats: true, pacing: pacing.pacing)
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    return (store, recorder)
  }

  private func fromAnotherThread(_ body: @escaping @Sendable () -> Void) async {
    await Task.detached(operation: body).value
  }
}

/// A clock that moves when the test says, and posts that run when the test says.
private final class ManualPacing: Sendable {
  private struct Post {
    let due: UInt64
    let round: @Sendable () -> Void
  }

  private let state: Guarded<(now: UInt64, posts: [Post], delays: [UInt64])>

  init(now: UInt64) {
    state = Guarded((now, [], []))
  }

  var now: UInt64 {
    get { state.withLock { $0.now } }
    set { state.withLock { $0.now = newValue } }
  }

  /// The delay of every post so far, in order.
  var delays: [UInt64] { state.withLock { $0.delays } }

  /// How many posts have not run.
  var pending: Int { state.withLock { $0.posts.count } }

  var pacing: RoundPacing {
    RoundPacing(
      now: { self.now },
      post: { delay, round in
        self.state.withLock {
          $0.delays.append(delay)
          $0.posts.append(Post(due: $0.now + delay, round: round))
        }
      })
  }

  /// Runs, in the order they were posted, the posts that are due.
  @MainActor
  func runDue() {
    let due = state.withLock { state in
      let now = state.now
      let due = state.posts.filter { $0.due <= now }
      state.posts.removeAll { $0.due <= now }
      return due
    }
    for post in due { post.round() }
  }
}
