import Foundation
import StatecraftTestSupport
import Testing

/// `swift run inspect` on the examples' recordings, as a user runs it.
@Suite(.catchesHangs) struct InspectorExampleTests {
  private let sessions = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Examples/Inspect/Sessions")
  private let generated = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("GeneratedSessionTests")

  // hostile.jsonl holds markup, quotes, backslashes, DEL, line separators, a CR between tokens,
  // an empty line and invalid UTF-8 (where reading stops): its test compiles and passes too.
  /// The options that name the app's code in a generated test.
  private static func names(_ app: String) -> [String] {
    app == "counter"
      ? ["--module", "CounterModel", "--reducer", "counterReducer", "--registry", "counterActions"]
      : ["--module", "TodoModel", "--reducer", "todoAppReducer", "--registry", "todoActions"]
  }

  @Test(arguments: [
    ("counter", "CounterSession"), ("todo", "TodoSession"), ("hostile", "HostileSession"),
  ])
  func theGeneratedTestsAreWhatTheInspectorWritesToday(app: String, file: String) async throws {
    let written = try await runExample(
      "inspect",
      arguments: [
        sessions.appendingPathComponent("\(app).jsonl").path, "--swift-test", "\(app)Session",
      ] + Self.names(app))
    let committed = try String(
      contentsOf: generated.appendingPathComponent("\(file).swift"), encoding: .utf8)
    #expect(
      written == committed,
      """
      Regenerate with: swift run inspect Examples/Inspect/Sessions/\(app).jsonl \
      --swift-test \(app)Session \(Self.names(app).joined(separator: " ")) \
      --output Tests/GeneratedSessionTests/\(file).swift
      """
    )
  }

  @Test func theHTMLPageIsWrittenForATodoSession() async throws {
    let page = FileManager.default.temporaryDirectory.appendingPathComponent(
      "todo-\(UUID().uuidString).html")
    defer { try? FileManager.default.removeItem(at: page) }
    let output = try await runExample(
      "inspect",
      arguments: [sessions.appendingPathComponent("todo.jsonl").path, "--html", page.path])
    #expect(output == "wrote \(page.path): 6 actions\n")
    let html = try String(contentsOf: page, encoding: .utf8)
    #expect(html.contains("<title>todo.jsonl · Statecraft session</title>"))
    #expect(html.contains("\"TodoModel.TodoAction\""))
  }

  @Test func thePageAndTheTestAreReadableByTheirOwnerOnly() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "inspect-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = sessions.appendingPathComponent("todo.jsonl").path
    let page = folder.appendingPathComponent("todo.html").path
    let test = folder.appendingPathComponent("TodoTests.swift").path
    _ = try await runExample("inspect", arguments: [session, "--html", page])
    _ = try await runExample(
      "inspect",
      arguments: [session, "--swift-test", "todo", "--output", test] + Self.names("todo"))
    for file in [page, test] {
      let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
    }
  }

  @Test func aFolderOrAPipeIsRefusedWithAMessageBeforeAnythingIsRead() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "inspect-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let pipe = folder.appendingPathComponent("session.jsonl")
    #expect(mkfifo(pipe.path, 0o600) == 0)
    for path in [folder.path, pipe.path] {
      for options in [
        [], ["--swift-test", "x"] + Self.names("todo"), ["--state", "1"],
        ["--html", folder.appendingPathComponent("o").path],
      ] {
        // Nothing writes to the pipe: an inspector that opened it to read would wait forever.
        let run = try await runExampleToEnd("inspect", arguments: [path] + options)
        #expect(run.status == 66)
        #expect(run.errors.contains("\(path) is not a regular file"), "\(run.errors)")
      }
    }
  }

  @Test func helpAndBadOptionsSayHowToUseIt() async throws {
    let help = try await runExampleToEnd("inspect", arguments: ["--help"])
    #expect(help.status == 0)
    #expect(help.output.contains("--swift-test NAME"))
    let bad = try await runExampleToEnd(
      "inspect", arguments: [sessions.appendingPathComponent("todo.jsonl").path, "--htm", "x"])
    #expect(bad.status == 64)
    #expect(bad.errors.contains("unknown option --htm"))
  }

  @Test func aHugeFileIsReadOnlyUpToItsLimits() async throws {
    // A gigabyte of zeros, sparse: one line longer than the 1 MiB a line may hold.
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "huge-\(UUID().uuidString).jsonl")
    #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
    defer { try? FileManager.default.removeItem(at: file) }
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 1 << 30)
    try handle.close()
    let run = try await runExampleToEnd("inspect", arguments: [file.path])
    #expect(run.status == 0)
    #expect(run.output.contains("0 actions"))
    #expect(run.errors.contains("line 1: longer than 16777216 bytes; reading stopped here"))
  }

  @Test func aLineOf100MBStopsReadingThereWithinItsLimit() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "long-line-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: file) }
    let counter = try String(
      contentsOf: sessions.appendingPathComponent("counter.jsonl"), encoding: .utf8)
    let lines = counter.split(separator: "\n")
    var data = Data((lines.prefix(3).joined(separator: "\n") + "\n").utf8)
    data.append(Data(repeating: UInt8(ascii: "x"), count: 100 << 20))
    try data.write(to: file)
    let run = try await runExampleToEnd("inspect", arguments: [file.path, "--state", "2"])
    #expect(run.status == 0)
    #expect(run.output.contains(#""count": 1"#))
    #expect(run.errors.contains("line 4: longer than 16777216 bytes; reading stopped here"))
  }

  @Test func deepNestingIsAnErrorInTheRecordingNotACrash() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "deep-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: file) }
    let depth = 100_000
    let line =
      #"{"index":0,"time":0,"type":"T","payload":"# + String(repeating: "[", count: depth)
      + String(repeating: "]", count: depth) + "}\n"
    try Data(line.utf8).write(to: file)
    for options in [[], ["--html", file.path + ".html"]] {
      let run = try await runExampleToEnd("inspect", arguments: [file.path] + options)
      #expect(run.status == 0)
      #expect(run.errors.contains("nested deeper than 512 levels"), "\(run.errors)")
    }
    try? FileManager.default.removeItem(atPath: file.path + ".html")
  }

  @Test func aGapPastTheLastIndexIsAProblemInEveryModeNotACrash() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gap-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: file) }
    let counter = try String(
      contentsOf: sessions.appendingPathComponent("counter.jsonl"), encoding: .utf8)
    let lines = counter.split(separator: "\n")
    let hostile = [lines[0], #"{"gap":{"from":9223372036854775807,"count":2}}"#] + lines[1...]
    try Data(hostile.joined(separator: "\n").utf8).write(to: file)
    let page = file.path + ".html"
    defer { try? FileManager.default.removeItem(atPath: page) }
    for options in [
      [], ["--state", "0"], ["--html", page], ["--swift-test", "t"] + Self.names("counter"),
    ] {
      let run = try await runExampleToEnd("inspect", arguments: [file.path] + options)
      #expect(run.status == 0 || run.status == 65, "\(options): \(run.status) \(run.errors)")
      #expect(
        run.errors.contains("line 2: not a recorded action (a gap of 2 actions"), "\(options)")
    }
  }

  @Test func theStateAfterAStepIsPrintedAsJSON() async throws {
    let session = sessions.appendingPathComponent("todo.jsonl").path
    let run = try await runExampleToEnd("inspect", arguments: [session, "--state", "4"])
    #expect(run.status == 0)
    let state = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
    let todos = state?["todos"] as? [[String: Any]]
    #expect(todos?.count == 2)
    #expect(todos?.first?["isDone"] as? Bool == true)
    let outOfRange = try await runExampleToEnd("inspect", arguments: [session, "--state", "99"])
    #expect(outOfRange.status == 64)
    #expect(outOfRange.errors.contains("--state needs a step from 0 to 6"))
  }

  @Test func aRecordingWithoutStatesSaysSoInsteadOfGuessing() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "old-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data(
      #"{"index":0,"payload":{"increment":{}},"time":0.1,"type":"CounterModel.CounterAction"}"#
        .utf8
    ).write(to: file)
    let list = try await runExampleToEnd("inspect", arguments: [file.path])
    #expect(list.status == 0)
    #expect(list.output.contains("CounterAction increment"))
    #expect(list.output.contains("1 actions; no states recorded"))
    for options in [["--state", "1"], ["--swift-test", "t"] + Self.names("counter")] {
      let run = try await runExampleToEnd("inspect", arguments: [file.path] + options)
      #expect(run.status == 65)
      #expect(run.errors.contains("the recording holds no states"))
    }
  }

  @Test func swiftTestNeedsTheNamesOfTheAppsCode() async throws {
    let session = sessions.appendingPathComponent("counter.jsonl").path
    let run = try await runExampleToEnd("inspect", arguments: [session, "--swift-test", "t"])
    #expect(run.status == 64)
    #expect(run.errors.contains("--swift-test needs --module, --reducer, --registry"))
    let bad = try await runExampleToEnd(
      "inspect",
      arguments: [
        session, "--swift-test", "t", "--module", "A;B", "--reducer", "r", "--registry", "g",
      ])
    #expect(bad.status == 64)
    #expect(bad.errors.contains("--module needs a Swift name"))
    let named = try await runExample(
      "inspect",
      arguments: [session, "--swift-test", "t", "--state-type", "AppState"] + Self.names("counter"))
    #expect(named.contains("let reducer: Reducer<AppState> = counterReducer"))
    #expect(named.contains("import CounterModel"))
  }
}
