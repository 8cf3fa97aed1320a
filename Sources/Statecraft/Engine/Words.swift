import StatecraftAtomics
import StatecraftPrimitives

/// The store's six atomic words, in one allocation, shared by its parts; each packs what the
/// dispatch path reads together.
///
/// | word | contents | written by |
/// | --- | --- | --- |
/// | `chain` | the address of the middleware chain in force, an unretained `ChainBox`; 0 without middleware (C16) | `middleware`'s setter, releasing |
/// | `owner` | the thread that owns the process lock, or 0; bit 0 (`batching`) while it commits a batch one action at a time | the owner |
/// | `mainFlags` | bit 0: a round runs; bit 1: a round runs its selectors under the state lock, which commits wait out by spinning | the main queue only |
/// | `earliestRound` | the time before which no scheduled round starts (C7) | scheduled rounds |
/// | `audience` | low 32 bits: subscriptions standing; high 32: changes of the registry's entries (a round compares it with its copy's; only exactly 2³² changes between two rounds go unseen) | the registry, under the bookkeeping lock |
/// | `signals` | bit 0: a round is due (C7); bits 1-31: work in the queue; bits 32-63: commit observers waiting (`take`, `condition`, `actions()`) | any thread |
///
/// The words share a cache line: Benchmarks/README.md (workload n) has the figures for a store
/// dispatched to from several threads.
@usableFromInline @frozen
struct StoreWords: Sendable {
  @usableFromInline let _words: AtomicWords

  @usableFromInline
  init() {
    _words = AtomicWords(count: 6)
  }

  @inlinable var chain: AtomicWord<UInt> { _words[0] }
  @inlinable var owner: AtomicWord<UInt> { _words[1] }
  @inlinable var mainFlags: AtomicWord<UInt64> { _words[2] }
  @inlinable var earliestRound: AtomicWord<UInt64> { _words[3] }
  @inlinable var audience: AtomicWord<UInt64> { _words[4] }
  @inlinable var signals: AtomicWord<UInt64> { _words[5] }

  /// `owner`'s bit for a batch committing one action at a time; thread ids are aligned
  /// addresses, so bit 0 is free.
  @usableFromInline static let batching: UInt = 1
  /// `mainFlags`' bits.
  @usableFromInline static let running: UInt64 = 1
  @usableFromInline static let selecting: UInt64 = 2

  @inlinable var isRoundRunning: Bool {
    mainFlags.load(ordering: .relaxed) & Self.running != 0
  }

  @inlinable var isSelecting: Bool {
    mainFlags.load(ordering: .relaxed) & Self.selecting != 0
  }

  /// Sets or clears a bit of `mainFlags`; on the main queue only.
  @inlinable
  func setMainFlag(_ flag: UInt64, _ isSet: Bool) {
    if isSet {
      mainFlags.setBits(flag, ordering: .relaxed)
    } else {
      mainFlags.clearBits(flag, ordering: .relaxed)
    }
  }

  @inlinable var subscriptionCount: Int {
    subscriptionCount(ordering: .relaxed)
  }

  @inlinable
  func subscriptionCount(ordering: AtomicOrdering) -> Int {
    Int(truncatingIfNeeded: audience.load(ordering: ordering) & 0xFFFF_FFFF)
  }

  /// Adds `delta` to the subscriptions standing; returns the count before.
  @usableFromInline
  func countSubscriptions(by delta: Int) -> Int {
    let old = audience.add(
      UInt64(bitPattern: Int64(delta)), ordering: .sequentiallyConsistent
    ).oldValue
    return Int(truncatingIfNeeded: old & 0xFFFF_FFFF)
  }

  /// The number of changes of the registry's entries, modulo 2³².
  @inlinable var registryGeneration: UInt64 {
    audience.load(ordering: .acquiring) >> 32
  }

  @usableFromInline
  func registryChanged() {
    audience.add(1 << 32, ordering: .releasing)
  }

  @inlinable var hasQueuedWork: Bool {
    signals.load(ordering: .acquiring) & 0xFFFF_FFFE != 0
  }

  /// Adds `delta` to the work in the queue.
  @usableFromInline
  func countQueued(by delta: Int) {
    signals.add(UInt64(bitPattern: Int64(2 * delta)), ordering: .releasing)
  }

  @inlinable var hasCommitObservers: Bool {
    signals.load(ordering: .relaxed) >> 32 != 0
  }

  /// Adds `delta` to the commit observers waiting.
  @usableFromInline
  func countCommitObservers(by delta: Int) {
    signals.add(UInt64(bitPattern: Int64(delta) << 32), ordering: .relaxed)
  }

  @inlinable var isRoundDue: Bool {
    signals.load(ordering: .relaxed) & 1 != 0
  }

  /// Marks a round due; returns whether it was not due before.
  @inlinable
  func markRoundDue() -> Bool {
    signals.setBits(1, ordering: .sequentiallyConsistent) & 1 == 0
  }

  @inlinable
  func clearRoundDue() {
    signals.clearBits(1, ordering: .sequentiallyConsistent)
  }

  /// Whether another thread is in the middle of a batch whose actions commit one by one, so that
  /// a round now could deliver a state in the middle of it.
  ///
  /// Only with middleware: without it a batch commits all its actions in one critical section.
  @inlinable
  var isBatchOpenOnAnotherThread: Bool {
    guard chain.load(ordering: .relaxed) != 0 else { return false }
    let owner = owner.load(ordering: .acquiring)
    return owner & Self.batching != 0 && owner & ~Self.batching != currentThreadID()
  }
}
