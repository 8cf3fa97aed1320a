import Foundation
import StatecraftTestSupport
import Testing

/// `swift run inspect` on the examples' recordings, as a user runs it.
@Suite(.bounded(minutes: 1)) struct InspectorExampleTests {
  private let sessions = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Examples/Inspect/Sessions")
  private let generated = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("GeneratedSessionTests")

  // hostile.jsonl holds markup, quotes, backslashes, DEL, line separators, a CR between tokens,
  // an empty line and invalid UTF-8 (where reading stops): its test compiles and passes too.
  @Test(arguments: [
    ("counter", "CounterSession"), ("todo", "TodoSession"), ("hostile", "HostileSession"),
  ])
  func theGeneratedTestsAreWhatTheInspectorWritesToday(app: String, file: String) throws {
    let written = try runExample(
      "inspect",
      arguments: [
        sessions.appendingPathComponent("\(app).jsonl").path, "--swift-test", "\(app)Session",
      ])
    let committed = try String(
      contentsOf: generated.appendingPathComponent("\(file).swift"), encoding: .utf8)
    #expect(
      written == committed,
      """
      Regenerate with: swift run inspect Examples/Inspect/Sessions/\(app).jsonl \
      --swift-test \(app)Session --output Tests/GeneratedSessionTests/\(file).swift
      """
    )
  }

  @Test func theHTMLPageIsWrittenForATodoSession() throws {
    let page = FileManager.default.temporaryDirectory.appendingPathComponent(
      "todo-\(UUID().uuidString).html")
    defer { try? FileManager.default.removeItem(at: page) }
    let output = try runExample(
      "inspect",
      arguments: [sessions.appendingPathComponent("todo.jsonl").path, "--html", page.path])
    #expect(output == "wrote \(page.path): 6 actions\n")
    let html = try String(contentsOf: page, encoding: .utf8)
    #expect(html.contains("<title>todo.jsonl · Statecraft session</title>"))
    #expect(html.contains("\"TodoModel.TodoAction\""))
  }

  @Test func thePageAndTheTestAreReadableByTheirOwnerOnly() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "inspect-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = sessions.appendingPathComponent("todo.jsonl").path
    let page = folder.appendingPathComponent("todo.html").path
    let test = folder.appendingPathComponent("TodoTests.swift").path
    _ = try runExample("inspect", arguments: [session, "--html", page])
    _ = try runExample("inspect", arguments: [session, "--swift-test", "todo", "--output", test])
    for file in [page, test] {
      let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
    }
  }

  @Test func aFolderOrAPipeIsRefusedWithAMessageBeforeAnythingIsRead() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "inspect-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let pipe = folder.appendingPathComponent("session.jsonl")
    #expect(mkfifo(pipe.path, 0o600) == 0)
    for path in [folder.path, pipe.path] {
      for options in [
        [], ["--swift-test", "x"], ["--html", folder.appendingPathComponent("o").path],
      ] {
        // Nothing writes to the pipe: an inspector that opened it to read would wait forever.
        let run = try runExampleToEnd("inspect", arguments: [path] + options)
        #expect(run.status == 66)
        #expect(run.errors.contains("\(path) is not a regular file"), "\(run.errors)")
      }
    }
  }

  @Test func helpAndBadOptionsSayHowToUseIt() throws {
    let help = try runExampleToEnd("inspect", arguments: ["--help"])
    #expect(help.status == 0)
    #expect(help.output.contains("--swift-test NAME"))
    let bad = try runExampleToEnd(
      "inspect", arguments: [sessions.appendingPathComponent("todo.jsonl").path, "--htm", "x"])
    #expect(bad.status == 64)
    #expect(bad.errors.contains("unknown option --htm"))
  }

  @Test func aHugeFileIsReadOnlyUpToItsLimits() throws {
    // A gigabyte of zeros, sparse: one line longer than the 1 MiB a line may hold.
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "huge-\(UUID().uuidString).jsonl")
    #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
    defer { try? FileManager.default.removeItem(at: file) }
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 1 << 30)
    try handle.close()
    let run = try runExampleToEnd("inspect", arguments: [file.path, "--swift-test", "huge"])
    #expect(run.status == 0)
    #expect(run.output.contains("@Test func huge()"))
    #expect(run.errors.contains("line 1: longer than 1048576 bytes; reading stopped here"))
  }
}
