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

  @Test(arguments: [("counter", "CounterSession"), ("todo", "TodoSession")])
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
}
