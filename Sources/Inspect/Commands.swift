import Foundation
import StatecraftInspector
import StatecraftTools

/// Reads the recording through the same checks as any recording (a folder or a pipe is refused
/// before anything is read), without the app's code.
func readRecording(_ path: String) throws -> Recording {
  do {
    return try Recording(contentsOf: URL(fileURLWithPath: path))
  } catch {
    fail("cannot read \(path): \(error.localizedDescription)", status: 66)
  }
}

/// The recording's problems on standard error, so that what is printed on standard output stays
/// valid JSON or Swift.
func reportProblems(_ report: SessionReport) {
  for problem in report.problems {
    FileHandle.standardError.write(Data("note: \(problem)\n".utf8))
  }
}

func listActions(of recording: Recording) {
  let report = SessionReport(recording: recording)
  var output = ""
  for (step, entry) in report.steps.enumerated() {
    let time = String(format: "%7.3f s", entry.time)
    output += "\(step + 1)\t\(time)\t\(entry.text)\n"
    if output.utf8.count > 1 << 16 {
      print(output, terminator: "")
      output = ""
    }
  }
  print(output, terminator: "")
  var summary = "\(recording.entries.count) actions"
  if let type = recording.header?.stateType {
    summary += "; state \(type)"
  } else {
    summary += "; no states recorded"
  }
  print(summary)
  reportProblems(report)
}

func printState(of recording: Recording, afterStep step: Int) {
  let report = SessionReport(recording: recording)
  guard recording.hasStates else {
    fail(
      "the recording holds no states (format \(recording.header?.version ?? 1), or a state "
        + "that is not Encodable): record it again with ActionRecorder and an Encodable state",
      status: 65)
  }
  guard step <= report.actionCount else {
    fail("--state needs a step from 0 to \(report.actionCount)", status: 64)
  }
  guard let (state, known) = report.state(afterStep: step) else {
    fail("the state after step \(step) is not in the recording", status: 65)
  }
  if known != step {
    FileHandle.standardError.write(
      Data(
        ("note: the state after step \(step) was not recorded (the recorder fell behind); "
          + "this is the state after step \(known)\n").utf8))
  }
  print(prettyJSON(state))
  reportProblems(report)
}

func writePage(of recording: Recording, named path: String, to output: String) {
  let report = SessionReport(recording: recording)
  do {
    try report.writeHTML(
      title: URL(fileURLWithPath: path).lastPathComponent, to: URL(fileURLWithPath: output))
  } catch {
    fail("cannot write \(output): \(error.localizedDescription)", status: 73)
  }
  print("wrote \(output): \(report.actionCount) actions")
  reportProblems(report)
}

func writeTest(
  of recording: Recording, named name: String, names: SessionReport.TestNames, to output: String?
) {
  let report = SessionReport(recording: recording)
  guard recording.hasStates else {
    fail(
      "the recording holds no states to check (format \(recording.header?.version ?? 1), or a "
        + "state that is not Encodable): record it again with ActionRecorder and an Encodable "
        + "state", status: 65)
  }
  guard !report.isIncomplete else {
    fail(
      "the recording lost \(recording.droppedStates) states and "
        + "\(recording.gaps.reduce(0) { $0 + $1.count }) actions because its writer fell "
        + "behind, so a test cannot check every step: record it again with larger "
        + "RecordingLimits", status: 65)
  }
  if let output {
    do {
      try report.writeSwiftTest(named: name, names: names, to: URL(fileURLWithPath: output))
    } catch {
      fail("cannot write \(output): \(error.localizedDescription)", status: 73)
    }
    print("wrote \(output): a test of \(report.actionCount) steps")
  } else {
    print(report.swiftTest(named: name, names: names), terminator: "")
  }
  reportProblems(report)
}

/// JSON with two spaces of indentation a level, keys sorted.
func prettyJSON(_ value: JSONValue) -> String {
  var text = ""
  func write(_ value: JSONValue, indent: String) {
    switch value {
    case .array(let array) where !array.isEmpty:
      text += "[\n"
      for (index, element) in array.enumerated() {
        text += indent + "  "
        write(element, indent: indent + "  ")
        text += index < array.count - 1 ? ",\n" : "\n"
      }
      text += indent + "]"
    case .object(let object) where !object.isEmpty:
      text += "{\n"
      let keys = object.keys.sorted()
      for (index, key) in keys.enumerated() {
        text += indent + "  " + JSONValue.string(key).jsonText() + ": "
        write(object[key] ?? .null, indent: indent + "  ")
        text += index < keys.count - 1 ? ",\n" : "\n"
      }
      text += indent + "}"
    default:
      text += value.jsonText()
    }
  }
  write(value, indent: "")
  return text
}
