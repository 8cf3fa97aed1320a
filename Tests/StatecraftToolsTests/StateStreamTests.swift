import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import Testing

@testable import StatecraftInspector
@testable import StatecraftTools

/// A stream with a state interval, as live inspection uses it: which state goes with which
/// action when states are taken at most once an interval and the last one is read from the store.
@Suite(.catchesHangs) struct StateStreamTests {
  enum Step: Action, Codable, Equatable {
    case add(Int)
  }

  static var registry: ActionRegistry {
    var registry = ActionRegistry()
    registry.register(Step.self)
    return registry
  }

  /// A stream whose states are never due during a test, and the lines it wrote.
  private func stream() -> (StateStream<[Int]>, Locked<[UInt8]>) {
    let bytes = Locked<[UInt8]>([])
    let limits = RecordingLimits()
    let stream = StateStream<[Int]>(
      header: ActionRecorder<[Int]>.header(limits: limits, isRedacted: false),
      registry: Self.registry, encoder: StateEncoderFactory(for: [Int].self), limits: limits,
      redacting: nil, pollInterval: 0.001, stateInterval: .seconds(3_600),
      sink: { written in bytes.withLock { $0 += written } }, onError: { _ in })
    return (stream, bytes)
  }

  private func states(_ bytes: Locked<[UInt8]>) -> [RecordedState] {
    Recording(data: Data(bytes.withLock { $0 })).entries.map(\.state)
  }

  @Test func onlyTheFirstStateIsDueWithinAnInterval() {
    let (stream, _) = stream()
    let start = MonotonicClock.now
    #expect(stream.takesState(at: start))
    #expect(!stream.takesState(at: start + 1_000_000))
    #expect(stream.takesState(at: start + 3_600_000_000_000))
    stream.close()
  }

  // T2 (Docs/ConcurrencyModel.md).
  @Test func theLastActionGetsTheStoresStateOnceNoDispatchIsUnderWay() {
    let (stream, bytes) = stream()
    let store = Locked<[Int]>([1, 2])
    stream.readStateWhenQuiet { store.withLock { $0 } }
    stream.enqueue(Step.add(1), state: [1])
    stream.enqueue(Step.add(2), state: nil)
    stream.flush()
    let states = states(bytes)
    #expect(states.first == .snapshot(.array([.integer(1)])))
    var lastIsChanges = false
    if case .changes = states.last { lastIsChanges = true }
    #expect(states.count == 2 && lastIsChanges, "\(states)")
    #expect(
      SessionReport(recording: Recording(data: Data(bytes.withLock { $0 })))
        .state(afterStep: 2)?.state == .array([.integer(1), .integer(2)]))
    stream.close()
  }

  // T2 (Docs/ConcurrencyModel.md).
  @Test func aStateReadWhileADispatchStartsIsNotTakenForTheOlderAction() {
    let (stream, bytes) = stream()
    let store = Locked<[Int]>([1, 2])
    let reads = Locked(0)
    // Weak: the stream keeps the reader.
    stream.readStateWhenQuiet { [weak stream] in
      // The first read races a dispatch of the next action: it commits [1, 2, 3] and hands the
      // action over before the read returns that state, which is not the one after action 2.
      let isFirst = reads.withLock { reads -> Bool in
        reads += 1
        return reads == 1
      }
      if isFirst, let stream {
        stream.beginDispatch()
        store.withLock { $0.append(3) }
        stream.enqueue(Step.add(3), state: nil)
        stream.endDispatch()
      }
      return store.withLock { $0 }
    }
    stream.enqueue(Step.add(1), state: [1])
    stream.enqueue(Step.add(2), state: nil)
    stream.flush()
    let states = states(bytes)
    #expect(states.count == 3)
    #expect(states.dropFirst().first == .omitted)
    #expect(
      SessionReport(recording: Recording(data: Data(bytes.withLock { $0 })))
        .state(afterStep: 3)?.state == .array([.integer(1), .integer(2), .integer(3)]))
    #expect(reads.withLock { $0 } == 2)
    stream.close()
  }

  // T3 (Docs/ConcurrencyModel.md).
  @Test func noStateIsReadWhileTheStoreShowsAnotherThanThePresent() {
    let (stream, bytes) = stream()
    // The reader says the store is not at the present (a live store moved back in time).
    stream.readStateWhenQuiet { nil }
    stream.enqueue(Step.add(1), state: [1])
    stream.enqueue(Step.add(2), state: nil)
    stream.flush()
    #expect(states(bytes) == [.snapshot(.array([.integer(1)])), .omitted])
    stream.close()
  }
}
