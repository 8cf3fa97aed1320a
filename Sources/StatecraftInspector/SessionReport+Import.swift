import Foundation
import StatecraftTools

// A recording file imported into the live page: read with the checks and limits of any
// recording, and shown as the page of a file shows it.

extension SessionReport {
  /// The most bytes of a recording a page imports; `inspect FILE` reads larger ones.
  package static let maximumImportBytes = 64 << 20

  /// Why a page cannot show a file it imported.
  package struct ImportError: Error, Equatable, CustomStringConvertible {
    package let description: String
  }

  /// The page's data for the recording `bytes`, as ``html(title:)`` embeds it, with the
  /// recording's problems (a malformed line stops the reading there, and is one).
  ///
  /// - Throws: ``ImportError`` when `bytes` is over ``maximumImportBytes`` or holds no
  ///   recording at all.
  /// - Complexity: O(*n*) for *n* bytes, at most ``maximumImportBytes``; one line is at most
  ///   ``Recording/defaultMaximumLineLength`` long.
  package static func pageData(importing bytes: [UInt8]) throws(ImportError) -> String {
    guard bytes.count <= maximumImportBytes else {
      throw ImportError(
        description:
          "the file holds \(bytes.count) bytes; a page imports at most \(maximumImportBytes): "
          + "open it with `inspect FILE --html PAGE` instead")
    }
    let recording = Recording(data: Data(bytes))
    guard recording.header != nil || !recording.entries.isEmpty else {
      let why = recording.problems.first.map { "\($0)" } ?? "it is empty"
      throw ImportError(description: "this is not a Statecraft recording: \(why)")
    }
    return SessionReport(recording: recording).pageData()
  }

  /// The regression test of the recording `bytes`, as `inspect FILE --swift-test` writes it: what
  /// the live page's Generate test shows, for its session or a file it imported.
  ///
  /// - Parameters:
  ///   - bytes: The recording.
  ///   - name: The test function's name.
  ///   - names: How the test reaches the app's reducer and registry; each a Swift name or a
  ///     path of names (`App.reducer`).
  /// - Returns: The Swift source of the test.
  /// - Throws: ``ImportError`` that says why no test can be written: a name that is not one, a
  ///   recording without states, or one that lost states or actions. A recording that starts
  ///   from a state (a store created with one, or a session after a commit) gives a test that
  ///   starts from it too.
  /// - Complexity: O(*n*) for *n* bytes of recording and changes.
  package static func swiftTest(
    importing bytes: [UInt8], named name: String, names: TestNames
  ) throws(ImportError) -> String {
    let given =
      names.imports + [names.reducer, names.registry] + (names.stateType.map { [$0] } ?? [])
    guard
      given.allSatisfy({ name in
        !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
      })
    else {
      throw ImportError(
        description: "the module, the reducer and the registry are needed, each a Swift name")
    }
    guard bytes.count <= maximumImportBytes else {
      throw ImportError(description: "the recording holds over \(maximumImportBytes) bytes")
    }
    let recording = Recording(data: Data(bytes))
    guard recording.hasStates else {
      throw ImportError(
        description: "the recording holds no states to check: its state is not Encodable, or "
          + "it is not a recording of format 2")
    }
    let report = SessionReport(recording: recording)
    guard !report.isIncomplete else {
      throw ImportError(
        description: "the recording lost states or actions (its writer fell behind), so a test "
          + "cannot check every step")
    }
    return report.swiftTest(named: name, names: names)
  }
}
