import CounterModel
import Foundation
import Statecraft
import StatecraftTools
import TodoModel

// Inspects a recording of the counter or the todo app:
//   swift run inspect FILE                     lists its actions
//   swift run inspect FILE --state N           shows the state after step N
//   swift run inspect FILE --html OUT.html     writes a page to explore it in a browser
//   swift run inspect FILE --swift-test NAME [--output FILE.swift]
//                                              writes a test that replays it, step by step

let usage = """
  usage: inspect RECORDING.jsonl [--state N | --html OUT.html | --swift-test NAME [--output FILE]]
  """

/// What the inspector needs to know of an app to replay its recordings.
struct App<State: Codable & Equatable & Sendable> {
  let registry: ActionRegistry
  let reducer: Reducer<State>
  let testNames: SessionReport.TestNames
  let describe: (State) -> String
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first else {
  print(usage)
  exit(64)
}

func value(after flag: String) -> String? {
  guard let index = arguments.firstIndex(of: flag) else { return nil }
  guard index + 1 < arguments.count else {
    print("\(flag) needs a value\n\(usage)")
    exit(64)
  }
  return arguments[index + 1]
}

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data((message + "\n").utf8))
  exit(status)
}

func inspect<State>(_ app: App<State>) {
  let file = URL(fileURLWithPath: path)
  let recording: Recording
  do {
    recording = try Recording(contentsOf: file, registry: app.registry)
  } catch {
    fail("cannot read \(path): \(error.localizedDescription)", status: 66)
  }

  if let output = value(after: "--html") {
    do {
      let report = try SessionReport(recording: recording, reducer: app.reducer)
      try report.html(title: file.lastPathComponent)
        .write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
      print("wrote \(output): \(report.actionCount) actions")
    } catch {
      fail("cannot write \(output): \(error)", status: 73)
    }
  } else if let name = value(after: "--swift-test") {
    do {
      let report = try SessionReport(recording: recording, reducer: app.reducer)
      let source = try String(contentsOf: file, encoding: .utf8)
      let test = try report.swiftTest(named: name, source: source, names: app.testNames)
      if let output = value(after: "--output") {
        try test.write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
        print("wrote \(output): a test of \(report.actionCount) steps")
      } else {
        print(test, terminator: "")
      }
    } catch {
      fail("cannot write the test: \(error)", status: 73)
    }
    return
  } else if let text = value(after: "--state") {
    guard let step = Int(text), (0...recording.entries.count).contains(step) else {
      fail("--state needs a step from 0 to \(recording.entries.count)", status: 64)
    }
    let state = recording.state(after: step, reducer: app.reducer)
    print("state after step \(step): \(app.describe(state))")
  } else {
    for (step, entry) in recording.entries.enumerated() {
      let time = String(format: "%7.3f s", entry.time)
      let name =
        entry.action.map { String(describing: $0) } ?? "\(entry.typeName) (not replayable)"
      print("\(step + 1)\t\(time)\t\(name)")
    }
    print("\(recording.entries.count) actions")
  }
  for problem in recording.problems
  where problem.reason != .notReplayable("Statecraft.StatecraftInit") {
    print("note: \(problem)")
  }
}

/// Which example recorded the file, from the type names on its first lines.
func recordedApp() -> String? {
  guard let handle = FileHandle(forReadingAtPath: path) else {
    fail("cannot read \(path)", status: 66)
  }
  let head = String(decoding: handle.readData(ofLength: 64 * 1_024), as: UTF8.self)
  try? handle.close()
  if head.contains("\"type\":\"TodoModel.") { return "todo" }
  if head.contains("\"type\":\"CounterModel.") || head.isEmpty { return "counter" }
  return nil
}

switch recordedApp() {
case "todo":
  inspect(
    App(
      registry: todoActions, reducer: todoAppReducer,
      testNames: .init(imports: ["TodoModel"], reducer: "todoAppReducer", registry: "todoActions"),
      describe: { state in
        let left = state.todos.filter { !$0.isDone }.count
        return "\(state.todos.count) todos, \(left) left, filter \(state.filter.rawValue)"
      }))
default:
  // The counter is the default, so that a recording of unknown actions is still listed.
  inspect(
    App(
      registry: counterActions, reducer: counterReducer,
      testNames: .init(
        imports: ["CounterModel"], reducer: "counterReducer", registry: "counterActions"),
      describe: { "count = \($0.count)" }))
}
