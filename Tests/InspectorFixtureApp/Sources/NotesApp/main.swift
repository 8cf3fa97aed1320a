import Foundation
import NotesCore
import Statecraft
import StatecraftTools

// A command-line notes app: `add TEXT`, `pin N`, `remove N`, `login USER TOKEN`, `state`, `q`.
// `--record FILE` records the session. After each command it prints the state as one line of
// JSON, `state: {...}`, which tests read.

let arguments = Array(CommandLine.arguments.dropFirst())
func value(after flag: String) -> String? {
  guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
  return arguments[index + 1]
}

let recorder = try value(after: "--record").map {
  try ActionRecorder<Notebook>(
    file: URL(fileURLWithPath: $0), registry: notesActions, redacting: notesRedaction)
}
let store = Store<Notebook>(
  reducer: notesReducer, state: nil, middleware: recorder.map { [$0.middleware()] } ?? [])

func printState() {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  let json = (try? encoder.encode(store.state)).map { String(decoding: $0, as: UTF8.self) }
  print("state: \(json ?? "?")")
  fflush(nil)
}

printState()
input: while let line = readLine() {
  let words = line.split(separator: " ", maxSplits: 1).map(String.init)
  switch (words.first ?? "", words.count > 1 ? words[1] : "") {
  case ("add", let text) where !text.isEmpty: store.dispatch(NoteAction.add(text))
  case ("pin", let number): store.dispatch(NoteAction.pin(Int(number) ?? -1))
  case ("remove", let number): store.dispatch(NoteAction.remove(Int(number) ?? -1))
  case ("login", let rest):
    let parts = rest.split(separator: " ").map(String.init)
    store.dispatch(NoteAction.logIn(user: parts.first ?? "", token: parts.last ?? ""))
  case ("q", _), ("quit", _): break input
  case ("state", _), ("", _): break
  default:
    print(
      "unknown command \"\(line)\"; commands: add TEXT, pin N, remove N, login USER TOKEN, state, q"
    )
  }
  printState()
}
recorder?.close()
