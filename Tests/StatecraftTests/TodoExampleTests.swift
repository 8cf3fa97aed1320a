import Foundation
import StatecraftTestSupport
import Testing
import TodoModel

@testable import Todo

@Suite(.bounded(minutes: 1)) struct TodoExampleTests {
  @Test func theReducerIsAPlainFunction() {
    var state = TodoState()
    todoReducer(state: &state, action: .add("Buy milk"))
    todoReducer(state: &state, action: .toggle(1))
    todoReducer(state: &state, action: .toggle(7))  // out of range: ignored
    #expect(state.todos == [Todo(title: "Buy milk", isDone: true)])
    todoReducer(state: &state, action: .setFilter(.active))
    #expect(state.visible.isEmpty)
  }

  @Test func aSessionAtATerminalIsSavedAndRestored() throws {
    let todo = builtProducts.appendingPathComponent("todo")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "todo-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }

    let first = try runInPseudoTerminal(
      todo, arguments: ["--file", file.path],
      typing: [
        "add Buy milk", "add Walk the dog", "toggle 1", "filter active", "undo", "delete 2",
        "quit",
      ])
    #expect(first.contains("[x] 1. Buy milk\n[ ] 2. Walk the dog\n(all: 1 of 2 left)"))
    #expect(first.contains("[ ] 2. Walk the dog\n(active: 1 of 2 left)"))
    #expect(first.contains("[x] 1. Buy milk\n(all: 0 of 1 left)"))
    #expect(first.hasSuffix("saved\n"))

    let second = try runInPseudoTerminal(
      todo, arguments: ["--file", file.path], typing: ["undo", "quit"])
    #expect(second.hasPrefix("[x] 1. Buy milk\n(all: 0 of 1 left)\n> "))
    #expect(second.contains("nothing to undo"))
  }
}
