import Statecraft

extension Interval {
  /// How long a test waits for an event it expects before it fails: a failure bound only.
  ///
  /// An event that comes arrives within milliseconds on an idle machine and within seconds under
  /// ThreadSanitizer beside ten CPU hogs; one that never comes (a lost delivery, a leak, a hang)
  /// fails the test after this long. It is generous so that the verdict never depends on load.
  public static var patience: Interval { .seconds(120) }
}
