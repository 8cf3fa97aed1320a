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

    (no option)          lists the recorded actions
    --state N            shows the state after step N
    --html OUT.html      writes a page to explore the session in a browser
    --swift-test NAME    writes a test that replays the session and checks each step's changes
    --output FILE        with --swift-test: writes the test to FILE instead of printing it
    --help               shows this

  Pages and tests are written readable by their owner only, as recordings are.
  """

/// What the inspector needs to know of an app to replay its recordings.
struct App<State: Codable & Equatable & Sendable> {
  let registry: ActionRegistry
  let reducer: Reducer<State>
  let testNames: SessionReport.TestNames
  let describe: (State) -> String
}

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data(("inspect: " + message + "\n").utf8))
  exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
  print(usage)
  exit(0)
}
guard let path = arguments.first, !path.hasPrefix("--") else {
  fail("name a recording first\n\(usage)", status: 64)
}

func value(after flag: String) -> String? {
  guard let index = arguments.firstIndex(of: flag) else { return nil }
  guard index + 1 < arguments.count else {
    fail("\(flag) needs a value\n\(usage)", status: 64)
  }
  return arguments[index + 1]
}

let known = ["--state", "--html", "--swift-test", "--output"]
for argument in arguments.dropFirst() where argument.hasPrefix("-") && !known.contains(argument) {
  fail("unknown option \(argument)\n\(usage)", status: 64)
}

func inspect<State>(_ app: App<State>, _ recording: Recording) {
  let file = URL(fileURLWithPath: path)
  if let output = value(after: "--html") {
    do {
      let report = try SessionReport(recording: recording, reducer: app.reducer)
      try report.writeHTML(title: file.lastPathComponent, to: URL(fileURLWithPath: output))
      print("wrote \(output): \(report.actionCount) actions")
    } catch {
      fail("cannot write \(output): \(error.localizedDescription)", status: 73)
    }
  } else if let name = value(after: "--swift-test") {
    do {
      let report = try SessionReport(recording: recording, reducer: app.reducer)
      if let output = value(after: "--output") {
        try report.writeSwiftTest(
          named: name, names: app.testNames, to: URL(fileURLWithPath: output))
        print("wrote \(output): a test of \(report.actionCount) steps")
      } else {
        print(report.swiftTest(named: name, names: app.testNames), terminator: "")
      }
    } catch {
      fail("cannot write the test: \(error.localizedDescription)", status: 73)
    }
    // On standard error, so that a test printed to standard output stays valid Swift.
    for problem in problems(of: recording) {
      FileHandle.standardError.write(Data("note: \(problem)\n".utf8))
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
  for problem in problems(of: recording) { print("note: \(problem)") }
}

/// The recording's problems, but the initial action, which is never replayable.
func problems(of recording: Recording) -> [Recording.Problem] {
  recording.problems.filter { $0.reason != .notReplayable("Statecraft.StatecraftInit") }
}

/// Reads the recording with the registry of both examples, through the same checks as any
/// recording (a folder or a pipe is refused before anything is read).
let recording: Recording
do {
  recording = try Recording(
    contentsOf: URL(fileURLWithPath: path), registry: counterActions.merging(todoActions))
} catch {
  fail("cannot read \(path): \(error.localizedDescription)", status: 66)
}

// Which example recorded the file, from the type names of its actions.
if recording.entries.contains(where: { $0.typeName.hasPrefix("TodoModel.") }) {
  inspect(
    App(
      registry: todoActions, reducer: todoAppReducer,
      testNames: .init(imports: ["TodoModel"], reducer: "todoAppReducer", registry: "todoActions"),
      describe: { state in
        let left = state.todos.filter { !$0.isDone }.count
        return "\(state.todos.count) todos, \(left) left, filter \(state.filter.rawValue)"
      }), recording)
} else {
  // The counter is the default, so that a recording of unknown actions is still listed.
  inspect(
    App(
      registry: counterActions, reducer: counterReducer,
      testNames: .init(
        imports: ["CounterModel"], reducer: "counterReducer", registry: "counterActions"),
      describe: { "count = \($0.count)" }), recording)
}
