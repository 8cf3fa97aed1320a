import Dispatch
import StatecraftAtomics

/// Answers "is this code running on the main dispatch queue?".
///
/// On Linux an `async` `main` parks thread 1 in `dispatch_main()` and main-actor work runs on a
/// worker thread, so "is this the main thread" is the wrong question. A key set on
/// `DispatchQueue.main` is visible exactly while the main queue runs, on every platform.
@usableFromInline
package enum MainQueue {
  /// The address libdispatch knows the key by, the key object's, which is never released.
  private static let key: UInt = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    let address = UInt(bitPattern: Unmanaged.passRetained(key).toOpaque())
    sc_publish_main_queue_key(UInt64(address))
    return address
  }()

  @usableFromInline
  package static var isCurrent: Bool {
    var key = UInt(sc_main_queue_key())
    if key == 0 { key = publishedKey() }
    return sc_queue_has_specific(UnsafeRawPointer(bitPattern: key)) != 0
  }

  /// Sets the key on the main queue the first time, and returns its address.
  @usableFromInline
  static func publishedKey() -> UInt {
    key
  }

  /// Stops, in debug builds, if this is not the main queue: checks C17's promise that a
  /// main-actor reducer runs only there.
  @usableFromInline
  static func assertCurrent() {
    #if DEBUG
      precondition(
        isCurrent, "Statecraft: a main-actor reducer was about to run off the main queue.")
    #endif
  }

  /// Runs `body` on the main actor: now if this is the main queue, else as soon as it runs.
  static func onMainActor(_ body: @escaping @MainActor @Sendable () -> Void) {
    if isCurrent {
      MainActor.assumeIsolated { body() }
    } else {
      Task { @MainActor in body() }
    }
  }

  /// Returns what `body` returns, run on the main actor: now if this is the main queue, else
  /// waiting for the main queue to run it.
  package static func syncOnMainActor<Value: Sendable>(_ body: @MainActor () -> Value) -> Value {
    if isCurrent { return MainActor.assumeIsolated { body() } }
    return DispatchQueue.main.sync { MainActor.assumeIsolated { body() } }
  }
}
