import Foundation
import Testing

@testable import Inspect

/// `inspect`'s command line: the live token never on it.
@Suite struct InspectOptionsTests {
  static let token = "0123456789abcdef0123456789abcdef"

  func liveToken(_ options: Options) -> String? {
    guard case .live(let settings) = options.command else { return nil }
    return settings.token
  }

  @Test func aTokenOnTheCommandLineIsRefusedWithWhereToPutIt() {
    #expect {
      _ = try Options(parsing: ["--live", "--token", Self.token])
    } throws: { error in
      "\(error)".contains("process list") && "\(error)".contains("--token-file")
        && "\(error)".contains(Options.tokenVariable)
    }
  }

  @Test func theTokenComesFromTheEnvironment() throws {
    let options = try Options(
      parsing: ["--live"], environment: [Options.tokenVariable: Self.token])
    #expect(liveToken(options) == Self.token)
  }

  @Test func theTokenComesFromAFileOnlyItsOwnerCanRead() throws {
    let file = try Self.tokenFile(mode: 0o600)
    defer { try? FileManager.default.removeItem(atPath: file) }
    let options = try Options(parsing: ["--live", "--token-file", file])
    #expect(liveToken(options) == Self.token)
  }

  @Test func aTokenFileOthersCanReadIsRefusedWithTheFix() throws {
    let file = try Self.tokenFile(mode: 0o644)
    defer { try? FileManager.default.removeItem(atPath: file) }
    #expect {
      _ = try Options(parsing: ["--live", "--token-file", file])
    } throws: { error in
      "\(error)".contains("mode 644") && "\(error)".contains("chmod 600")
    }
  }

  @Test func aTokenFileThatIsMissingOrAFolderIsAClearError() throws {
    for path in ["/no/such/token", NSTemporaryDirectory()] {
      #expect {
        _ = try Options(parsing: ["--live", "--token-file", path])
      } throws: { error in
        "\(error)".contains("is not a file that can be read")
      }
    }
  }

  @Test func withoutATokenTheInspectorMakesOne() throws {
    let options = try Options(parsing: ["--live"], environment: [:])
    #expect(liveToken(options) == nil)
  }

  /// A file holding the token and a newline, with `mode`.
  static func tokenFile(mode: Int) throws -> String {
    let path = NSTemporaryDirectory() + "token-\(UUID().uuidString)"
    try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes(
      [.posixPermissions: NSNumber(value: mode)], ofItemAtPath: path)
    return path
  }
}
