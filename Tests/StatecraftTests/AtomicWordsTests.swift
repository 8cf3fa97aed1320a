import Foundation
import StatecraftPrimitives
import StatecraftTestSupport
import Testing

@testable import Statecraft

@Suite(.catchesHangs) struct AtomicWordsTests {
  /// Each word is its own: an operation on one leaves the others as they were.
  @Test func wordsAreIndependent() {
    let words = AtomicWords(count: 6)
    for index in 0..<6 {
      let word: AtomicWord<UInt64> = words[index]
      word.store(UInt64(index) * 100, ordering: .relaxed)
    }
    let first: AtomicWord<UInt64> = words[0]
    first.add(1, ordering: .relaxed)
    let values = (0..<6).map { index -> UInt64 in
      let word: AtomicWord<UInt64> = words[index]
      return word.load(ordering: .relaxed)
    }
    #expect(values == [1, 100, 200, 300, 400, 500])
    withExtendedLifetime(words) {}  // an AtomicWord is usable while its words are kept
  }

  @Test func bitOperationsReturnTheWordBefore() {
    let words = AtomicWords(count: 1)
    let word: AtomicWord<UInt64> = words[0]
    #expect(word.setBits(0b101, ordering: .sequentiallyConsistent) == 0)
    #expect(word.clearBits(0b001, ordering: .relaxed) == 0b101)
    #expect(word.load(ordering: .relaxed) == 0b100)
    withExtendedLifetime(words) {}
  }

  /// The packed fields of a store's words do not spill into each other: work in the queue, a
  /// round due and listeners share `signals`; subscriptions and the registry's generation share
  /// `audience`.
  @Test func storeWordsKeepTheirFieldsApart() {
    let words = StoreWords()
    #expect(words.markRoundDue())
    #expect(!words.markRoundDue())
    words.countQueued(by: 3)
    words.countCommitObservers(by: 2)
    words.countQueued(by: -3)
    #expect(!words.hasQueuedWork)
    #expect(words.hasCommitObservers)
    #expect(words.isRoundDue)
    words.clearRoundDue()
    words.countCommitObservers(by: -2)
    #expect(words.signals.load(ordering: .relaxed) == 0)

    words.registryChanged()
    #expect(words.countSubscriptions(by: 1) == 0)
    #expect(words.countSubscriptions(by: 1) == 1)
    #expect(words.countSubscriptions(by: -1) == 2)
    #expect(words.subscriptionCount == 1)
    #expect(words.registryGeneration == 1)
  }

  /// A class's first stored word, reached through `AtomicWord(firstStoredPropertyOf:)`, is that
  /// property, in a root class and in a subclass whose own properties follow; four threads adding
  /// to it lose no addition.
  @Test func theFirstStoredPropertyOfAnObjectIsItsWord() async {
    class Root {
      var word: UInt64 = 7
      var after: UInt64 = 0
    }
    final class Child: Root {
      var own: UInt64 = 9
    }
    let root = Root()
    let rootWord = AtomicWord<UInt64>(firstStoredPropertyOf: root)
    #expect(rootWord.load(ordering: .relaxed) == 7)
    let child = Child()
    let word = AtomicWord<UInt64>(firstStoredPropertyOf: child)
    #expect(word.load(ordering: .relaxed) == 7)
    word.store(0, ordering: .relaxed)
    nonisolated(unsafe) let shared = word
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask { for _ in 0..<10_000 { shared.add(1, ordering: .relaxed) } }
      }
    }
    #expect(child.word == 40_000)
    #expect(child.after == 0 && child.own == 9)
    withExtendedLifetime(root) {}
  }

  /// A subscription's status packs its start version above its two flags: setting the version
  /// keeps the flags, and ending the subscription keeps the version.
  @MainActor
  @Test func aStatusKeepsItsFlagsAndItsStartVersionApart() {
    let status = SubscriptionStatus()
    #expect(status.isActive(.relaxed) && !status.isRemoved)
    status.setStartVersion(41)
    status.setStartVersion(1_000)
    #expect(status._flags.load(ordering: .relaxed) >> 2 == 1_000)
    #expect(status.isActive(.relaxed))
    #expect(!status.markRemoved())
    #expect(status.end())
    #expect(!status.isActive(.relaxed) && status.isRemoved)
    #expect(status._flags.load(ordering: .relaxed) >> 2 == 1_000)
    status.setStartVersion(.max)
    #expect(status._flags.load(ordering: .relaxed) >> 2 == SubscriptionStatus.unstarted)
    #expect(status.isRemoved)
  }

  /// The package's lock excludes: four threads of their own add to a plain counter under it,
  /// one of them holding it across yields at times, so that the others find it held and sleep
  /// (the Linux word's slow path, which its fast path never takes alone). No addition is lost,
  /// and every sleeper is woken: the test would hang otherwise, and its time limit says so.
  @Test func theLockLosesNoAdditionAndWakesItsSleepers() async {
    let counter = Locked(0)
    let rounds = 20_000
    let totals = await withTaskGroup(of: Int?.self) { group in
      for thread in 0..<4 {
        group.addTask {
          await onItsOwnThread(failingAfter: .seconds(30)) {
            for round in 0..<rounds {
              counter.withLock { value in
                value += 1
                // Held across a hundred yields now and then: the others find it held.
                if thread == 0, round % 1_000 == 0 { for _ in 0..<100 { sched_yield() } }
              }
            }
            return rounds
          }
        }
      }
      var totals: [Int?] = []
      for await total in group { totals.append(total) }
      return totals
    }
    #expect(totals == [rounds, rounds, rounds, rounds], "a thread did not finish: a lost wake-up")
    #expect(counter.withLock { $0 } == 4 * rounds)
  }

  @Test func aCellHoldsItsValue() {
    let cell = AtomicCell<Int>(41)
    cell.add(1, ordering: .relaxed)
    #expect(cell.load(ordering: .relaxed) == 42)
    #expect(cell.exchange(7, ordering: .acquiringAndReleasing) == 42)
    #expect(cell.subtract(2, ordering: .relaxed).newValue == 5)
  }
}
