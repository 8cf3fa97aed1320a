import Statecraft

// A command-line counter in the shape of an app: a global store, a view that subscribes, and
// input that dispatches. Type +, - or 0 and return; q or the end of input quits.

let mainStore = Store<AppState>(reducer: counterReducer, state: nil)

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
print("bye")
