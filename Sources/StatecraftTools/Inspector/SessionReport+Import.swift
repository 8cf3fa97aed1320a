import Foundation

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
}
