import Foundation
import Statecraft
import StatecraftTools
import TodoModel

// An interactive todo list in the terminal. Commands: add TITLE, toggle N, delete N,
// filter all|active|done, undo, q. The list is saved between runs (`--file PATH`, default
// ~/.statecraft-todo.json); undo steps back through the states the session went through.
// `--record FILE` records the session for `swift run inspect FILE`.

let arguments = Array(CommandLine.arguments.dropFirst())
let file: URL = {
  if let flag = arguments.firstIndex(of: "--file"), flag + 1 < arguments.count {
    return URL(fileURLWithPath: arguments[flag + 1])
  }
  return FileManager.default.homeDirectoryForCurrentUser
    .appendingPathComponent(".statecraft-todo.json")
}()

let persistence = StatePersistence<TodoState, TodoState>(
  file: file, debounce: .milliseconds(100), select: { $0 })
var initial = TodoState()
switch persistence.restore() {
case .success(let saved?): initial = saved
case .success(nil): break
case .failure(let error): print("note: \(error)")
}
let commands = "commands: add TITLE, toggle N, delete N, filter all|active|done, undo, q quits"
print("todo list saved in \(file.path)\n\(commands)")

/// `--record FILE` records the session's actions; `swift run inspect FILE` shows them again.
let recorder: ActionRecorder<TodoState>? = {
  guard let flag = arguments.firstIndex(of: "--record"), flag + 1 < arguments.count else {
    return nil
  }
  return try? ActionRecorder(
    file: URL(fileURLWithPath: arguments[flag + 1]), registry: todoActions)
}()

let timeTravel = TimeTravel<TodoState>()
let mainStore = Store<TodoState>(
  reducer: timeTravel.wrap(todoAppReducer),
  state: initial,
  middleware: [persistence.middleware()] + (recorder.map { [$0.middleware()] } ?? [])
)

// The first entry of the history is the state the run began with, so undo can return to it.
mainStore.dispatch(TodoAction.setFilter(initial.filter))

let view = TodoView(store: mainStore)
view.appear()

/// The history index the store shows; moves back on undo, to the end on any other change.
var shown = -1

func prompt() {
  print("> ", terminator: "")
  fflush(nil)
}

prompt()
input: while let line = readLine() {
  let words = line.split(separator: " ", maxSplits: 1).map(String.init)
  let argument = words.count > 1 ? words[1] : ""
  switch words.first ?? "" {
  case "add" where !argument.isEmpty: mainStore.dispatch(TodoAction.add(argument))
  case "add": print("add needs a title: add TITLE")
  case "toggle", "delete":
    let count = mainStore.state.todos.count
    guard let number = Int(argument), (1...max(count, 1)).contains(number), count > 0 else {
      print(
        count == 0
          ? "there is no todo to \(words[0]) yet; add one first"
          : "\(words[0]) needs the number of a todo, from 1 to \(count): \(words[0]) N")
      break
    }
    mainStore.dispatch(
      words[0] == "toggle" ? TodoAction.toggle(number) : TodoAction.delete(number))
  case "filter":
    if let filter = Filter(rawValue: argument) {
      mainStore.dispatch(TodoAction.setFilter(filter))
    } else {
      print("filter all, active or done")
    }
  case "undo":
    let current = shown < 0 ? timeTravel.count - 1 : shown
    if current > 0, timeTravel.jump(mainStore, to: current - 1) {
      shown = current - 1
    } else {
      print("nothing to undo")
    }
    prompt()
    continue
  case "q", "quit": break input
  case "": break
  default: print("unknown command \"\(line)\"; \(commands)")
  }
  shown = -1
  prompt()
}
recorder?.close()
await persistence.flush()
print("saved")
