import Statecraft
import StatecraftTestSupport
import Testing

@testable import StatecraftTools

/// The history a live-inspected app keeps to move back in time: states computed again from the
/// held actions, skips, and forgetting the oldest actions.
@Suite(.catchesHangs) struct LiveHistoryTests {
  struct Add: Action { let value: Int }

  static let reducer: Reducer<[Int]> = { action, state in
    var state = state ?? []
    if let add = action as? Add { state.append(add.value) }
    return state
  }

  private func history(_ count: Int, limit: Int = 10_000) -> LiveHistory<[Int]> {
    var history = LiveHistory<[Int]>(limit: limit)
    history.forgetting = Self.reducer
    history.append(index: 0, action: StatecraftInit(), before: nil)
    for value in 1...count { history.append(index: value, action: Add(value: value), before: nil) }
    return history
  }

  @Test func theStateAfterAnyHeldActionIsTheReducersOnTheActionsBefore() throws {
    var history = history(250)
    for index in [0, 1, 99, 100, 101, 250] {
      let position = try #require(history.position(of: index))
      #expect(
        history.state(afterPosition: position, reducer: Self.reducer)
          == Array(0...index).dropFirst().map { $0 })
    }
  }

  @Test func skippingAnActionComputesTheLaterStatesWithoutIt() throws {
    var history = history(150)
    let position = try #require(history.position(of: 50))
    let present = history.toggleSkip(atPosition: position, reducer: Self.reducer)
    #expect(present == Array(1...150).filter { $0 != 50 })
    #expect(history.skipped == [50])
    let later = try #require(history.position(of: 120))
    let later50 = history.state(afterPosition: later, reducer: Self.reducer).map { $0.contains(50) }
    #expect(later50 == false)
    #expect(history.toggleSkip(atPosition: position, reducer: Self.reducer) == Array(1...150))
  }

  @Test func theOldestActionsAreForgottenAHundredAtATimeWithTheirStateKept() throws {
    var history = history(450, limit: 200)
    let first = try #require(history.firstIndex)
    #expect(first > 0)
    #expect(history.entries.count < 300)
    #expect(history.position(of: 1) == nil)
    let position = try #require(history.position(of: 450))
    #expect(history.state(afterPosition: position, reducer: Self.reducer) == Array(1...450))
  }

  @Test func afterDroppedActionsTheHistoryStartsFromTheStateAfterThem() throws {
    var history = history(10)
    history.restart(from: [7])
    history.append(index: 20, action: Add(value: 20), before: nil)
    #expect(!history.isBroken)
    #expect(history.state(afterPosition: 0, reducer: Self.reducer) == [7, 20])
    history.restart(from: nil)
    #expect(history.isBroken)
  }
}
