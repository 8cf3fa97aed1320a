import Benchmark
import Foundation
import Statecraft
import StatecraftInspector
import StatecraftTools

// MARK: r: the inspector's report, page and generated test (issue 27)

private struct Note: Codable, Equatable, Sendable {
  var id: Int
  var title: String
  var isDone = false
}

private struct Notes: Codable, Equatable, Sendable {
  var notes: [Note] = []
}

private enum NoteAction: Action, Codable {
  case add(String)
  case toggle(Int)
  case delete(Int)
}

private let notesReducer: Reducer<Notes> = { action, state in
  var state = state ?? Notes()
  switch action as? NoteAction {
  case .add(let title): state.notes.append(Note(id: state.notes.count, title: title))
  case .toggle(let index) where state.notes.indices.contains(index):
    state.notes[index].isDone.toggle()
  case .delete(let index) where state.notes.indices.contains(index):
    state.notes.remove(at: index)
  default: break
  }
  return state
}

private func recording(_ actions: [NoteAction]) -> Recording {
  var registry = ActionRegistry()
  registry.register(NoteAction.self)
  let encoder = JSONEncoder()
  let type = String(reflecting: NoteAction.self)
  var text = ""
  for (index, action) in actions.enumerated() {
    let payload = String(decoding: (try? encoder.encode(action)) ?? Data(), as: UTF8.self)
    text += #"{"index":\#(index),"payload":\#(payload),"time":0.001,"type":"\#(type)"}"# + "\n"
  }
  return Recording(data: Data(text.utf8), registry: registry)
}

/// `count` additions: the list grows to `count` notes.
private func additions(_ count: Int) -> Recording {
  recording((0..<count).map { .add("note \($0)") })
}

/// `count` actions on a list that stays near 100 notes: additions, toggles and deletions.
private func mixed(_ count: Int) -> Recording {
  var size = 0
  return recording(
    (0..<count).map { index in
      if size < 100 || index % 3 == 0 {
        size += 1
        return .add("note \(index)")
      }
      if index % 3 == 1 { return .toggle(index % size) }
      size -= 1
      return .delete(index % size)
    })
}

func inspectorBenchmarks() {
  let heavy = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 0,
    maxDuration: .seconds(10), maxIterations: 3)
  for count in [1_000, 4_000] {
    let session = additions(count)
    Benchmark("r: report of \(count) additions", configuration: heavy) { benchmark in
      for _ in benchmark.scaledIterations {
        blackHole(try SessionReport(recording: session, reducer: notesReducer))
      }
    }
    // What the report did before it compared parts of the state: every state encoded whole.
    Benchmark("r baseline: \(count) states encoded whole", configuration: heavy) { benchmark in
      let encoder = JSONEncoder()
      for _ in benchmark.scaledIterations {
        var state = notesReducer(StatecraftInit(), nil)
        for entry in session.entries {
          if let action = entry.action { state = notesReducer(action, state) }
          blackHole(try encoder.encode(state))
        }
      }
    }
  }
  let long = mixed(100_000)
  Benchmark("r: report of 100000 actions on about 100 notes", configuration: heavy) {
    benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try SessionReport(recording: long, reducer: notesReducer))
    }
  }
  Benchmark("r: page and test of 100000 actions on about 100 notes", configuration: heavy) {
    benchmark in
    let report = try SessionReport(recording: long, reducer: notesReducer)
    let names = SessionReport.TestNames(imports: [], reducer: "notesReducer", registry: "notes")
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(report.html(title: "notes"))
      blackHole(report.swiftTest(named: "notes", names: names))
    }
  }
}
