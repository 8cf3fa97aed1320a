import CounterModel
import Foundation
import Statecraft
import StatecraftTools

// Inspects a recording of the counter app: `swift run inspect FILE` lists its actions,
// `swift run inspect FILE --state N` shows the state after step N.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first else {
  print("usage: inspect RECORDING.jsonl [--state N]")
  exit(64)
}

let recording: Recording
do {
  recording = try Recording(contentsOf: URL(fileURLWithPath: path), registry: counterActions)
} catch {
  print("cannot read \(path): \(error.localizedDescription)")
  exit(66)
}

if let flag = arguments.firstIndex(of: "--state") {
  guard flag + 1 < arguments.count, let step = Int(arguments[flag + 1]),
    (0...recording.entries.count).contains(step)
  else {
    print("--state needs a step from 0 to \(recording.entries.count)")
    exit(64)
  }
  let state = recording.state(after: step, reducer: counterReducer)
  print("state after step \(step): count = \(state.count)")
} else {
  for (step, entry) in recording.entries.enumerated() {
    let time = String(format: "%7.3f s", entry.time)
    let name = entry.action.map { String(describing: $0) } ?? "\(entry.typeName) (not replayable)"
    print("\(step + 1)\t\(time)\t\(name)")
  }
  print("\(recording.entries.count) actions")
}
for problem in recording.problems
where problem.reason != .notReplayable("Statecraft.StatecraftInit") {
  print("note: \(problem)")
}
