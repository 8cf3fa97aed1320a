import Dispatch
import Statecraft
import StatecraftTesting
import Testing

@MainActor
@Suite struct CoalescingTests {
  @Test func mainQueueDispatchesAreNotifiedOncePerTurn() async {
    let store = makeStore()
    store.coalescesNotifications = true
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    for _ in 0..<3 { store.dispatch(Increment()) }
    #expect(recorder.values == [0])  // not yet: on the next turn of the main queue
    await recorder.waitForValues(count: 2)
    #expect(recorder.values == [0, 3])
  }

  @Test func aFloodFromAnotherThreadIsDeliveredAsItsLatestState() async {
    let store = makeStore()
    store.coalescesNotifications = true
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    // Hold the main queue while another thread commits 1,000 states, so that they all wait
    // for the same turn.
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      for _ in 0..<1_000 { store.dispatch(Increment()) }
      done.signal()
    }
    done.wait()
    await recorder.waitForValues(count: 2)
    #expect(recorder.values == [0, 1_000])
  }

  @Test func turningItOffRestoresSynchronousDelivery() {
    let store = makeStore()
    store.coalescesNotifications = true
    store.coalescesNotifications = false
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
  }
}
