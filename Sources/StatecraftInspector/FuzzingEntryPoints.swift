import Foundation
import StatecraftTools

/// What the fuzzers in `Tests/Fuzz` run: everything `inspect` does with bytes it did not write,
/// past the reader.
///
/// Not API for apps: the fuzz package is a package of its own, so it reaches what the inspector
/// uses internally through this SPI.
@_spi(Fuzzing) public enum FuzzingEntryPoints {
  /// Reads `data` as a recording without the app's code, as `inspect` does, and builds what each
  /// of its modes shows: the report, the state after every step, the page and the test.
  ///
  /// - Parameter data: Any bytes.
  /// - Complexity: O(*n*) for *n* bytes, plus the changes the recording holds for each step.
  public static func inspect(_ data: Data) {
    let report = SessionReport(recording: Recording(data: data))
    for step in 0...report.actionCount { _ = report.state(afterStep: step) }
    _ = report.html(title: "fuzz")
    _ = report.swiftTest(
      named: "fuzz", names: .init(imports: ["App"], reducer: "reducer", registry: "registry"))
  }

  /// Hands `data` to a live session as the lines of an app's connection, in pieces as the
  /// server reads them, with a page that reads its events, as `inspect --live` does.
  ///
  /// - Parameter data: Any bytes.
  /// - Complexity: O(*n*) for *n* bytes, plus the changes the lines hold.
  public static func liveSession(_ data: Data) {
    let session = LiveSession()
    let page = LiveSession.Client()
    session.add(page)
    _ = session.appConnected { _ in true }
    let bytes = [UInt8](data)
    session.receive(lines: bytes.split(separator: 10, omittingEmptySubsequences: true))
    _ = page.take(session)
    _ = session.send(command: .object(["command": .string("resume")]))
    session.appDisconnected()
    _ = page.take(session)
  }
}
