import CounterModel
import Foundation
import Statecraft
import StatecraftTools

// A command-line counter in the shape of an app: a global store, a view that subscribes, and
// input that dispatches. Type +, - or 0 and return; q or the end of input quits.
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

print("+ increments, - decrements, 0 resets, q quits")

let view = CounterView()
view.appear()

input: while let line = readLine() {
  switch line.filter({ !$0.isWhitespace }) {
  case "+": mainStore.dispatch(CounterAction.increment)
  case "-": mainStore.dispatch(CounterAction.decrement)
  case "0": mainStore.dispatch(CounterAction.reset)
  case "q": break input
  case "": continue
  default: print("unknown command: \(line)")
  }
}
recorder?.close()
print("bye")
