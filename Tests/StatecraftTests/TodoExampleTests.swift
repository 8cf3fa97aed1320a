import Foundation
import StatecraftTestSupport
import Testing
import TodoModel

@testable import Todo

@Suite(.catchesHangs) struct TodoExampleTests {
  @Test func theReducerIsAPlainFunction() {
    var state = TodoState()
    todoReducer(state: &state, action: .add("Buy milk"))
    todoReducer(state: &state, action: .toggle(1))
    todoReducer(state: &state, action: .toggle(7))  // out of range: ignored
    #expect(state.todos == [Todo(title: "Buy milk", isDone: true)])
    todoReducer(state: &state, action: .setFilter(.active))
    #expect(state.visible.isEmpty)
  }

  @Test func aSessionAtATerminalIsSavedAndRestored() async throws {
    let todo = builtProducts.appendingPathComponent("todo")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "todo-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }

    let first = try await runInPseudoTerminal(
      todo, arguments: ["--file", file.path],
      typing: [
        "add Buy milk", "add Walk the dog", "toggle 1", "filter active", "undo", "delete 2",
        "quit",
      ])
    #expect(first.contains("[x] 1. Buy milk\n[ ] 2. Walk the dog\n(all: 1 of 2 left)"))
    #expect(first.contains("[ ] 2. Walk the dog\n(active: 1 of 2 left)"))
    #expect(first.contains("[x] 1. Buy milk\n(all: 0 of 1 left)"))
    #expect(first.hasSuffix("saved\n"))

    let second = try await runInPseudoTerminal(
      todo, arguments: ["--file", file.path], typing: ["undo", "q"])
    #expect(second.hasPrefix("todo list saved in \(file.path)\ncommands: add TITLE"))
    #expect(second.contains("q quits\n[x] 1. Buy milk\n(all: 0 of 1 left)\n> "))
    #expect(second.contains("nothing to undo"))
    #expect(second.hasSuffix("saved\n"))
  }

  /// Issue 29: the commands on start, an error line for each bad command, q quits.
  @Test func badCommandsSayWhatIsExpectedAndChangeNothing() async throws {
    let todo = builtProducts.appendingPathComponent("todo")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "todo-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    let session = try await runInPseudoTerminal(
      todo, arguments: ["--file", file.path],
      typing: ["toggle 1", "add Buy milk", "toggle 9", "delete x", "add", "frobnicate", "q"])
    let lines = session.components(separatedBy: "\n")
    #expect(lines[1].hasPrefix("commands: add TITLE, toggle N, delete N"))
    for message in [
      "there is no todo to toggle yet; add one first",
      "toggle needs the number of a todo, from 1 to 1: toggle N",
      "delete needs the number of a todo, from 1 to 1: delete N",
      "add needs a title: add TITLE",
      "unknown command \"frobnicate\"; commands: add TITLE",
    ] {
      #expect(session.contains(message), "missing: \(message)")
    }
    // Two renders only: the empty list, and after the one good command.
    #expect(session.components(separatedBy: " left)").count == 3, "a bad command changed the list")
    #expect(session.hasSuffix("saved\n"))
  }
}
