import CounterModel
import Foundation
import Statecraft
import StatecraftTools

// A command-line counter in the shape of an app: a global store, a view that subscribes, and
// input that dispatches. Type +, - or 0 and return at the prompt; q or the end of input quits.
// `--record FILE` records the session; `swift run inspect FILE` shows it again.

let arguments = Array(CommandLine.arguments.dropFirst())
let recorder: ActionRecorder<AppState>? = {
  guard let flag = arguments.firstIndex(of: "--record"), flag + 1 < arguments.count else {
    return nil
  }
  return try? ActionRecorder(
    file: URL(fileURLWithPath: arguments[flag + 1]), registry: counterActions)
}()

let mainStore = Store<AppState>(
  reducer: counterReducer, state: nil, middleware: recorder.map { [$0.middleware()] } ?? [])

let commands = "commands: + increments, - decrements, 0 resets, q quits"
print(commands)

let view = CounterView()
view.appear()

func prompt() {
  print("> ", terminator: "")
  fflush(nil)
}

prompt()
input: while let line = readLine() {
  switch line.filter({ !$0.isWhitespace }) {
  case "+": mainStore.dispatch(CounterAction.increment)
  case "-": mainStore.dispatch(CounterAction.decrement)
  case "0": mainStore.dispatch(CounterAction.reset)
  case "q", "quit": break input
  case "": break
  default: print("unknown command \"\(line)\"; \(commands)")
  }
  prompt()
}
recorder?.close()
print("bye")
