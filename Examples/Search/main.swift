import Dispatch
import Statecraft
import Synchronization

// Type-ahead search over a bundled list of characters. Each line on standard input is the
// search field's text after a keystroke: `swift run search`, then type `l`, `lu`, `luk`, each
// followed by return. A search waits 250 ms (`--debounce-ms N`) and a newer query cancels it.

let mainStore = Store<SearchState>(reducer: searchReducer, state: nil)
let arguments = Array(CommandLine.arguments.dropFirst())
if let flag = arguments.firstIndex(of: "--debounce-ms"), flag + 1 < arguments.count,
  let milliseconds = Int(arguments[flag + 1])
{
  mainStore.thunkEnvironment[DebounceKey.self] = .milliseconds(milliseconds)
}

let view = ResultsView(store: mainStore)
view.appear()

// Keystrokes arrive on another thread, as they would from a text field's delegate.
let lastSearch = Mutex<ThunkTask<Void>?>(nil)
let (endOfInput, finishInput) = AsyncStream.makeStream(of: Void.self)
DispatchQueue.global().async {
  while let line = readLine() {
    let task = mainStore.dispatch(search(line))
    lastSearch.withLock { $0 = task }
  }
  finishInput.finish()
}
for await _ in endOfInput {}
_ = try? await lastSearch.withLock({ $0 })?.value
// The last results were committed on another thread; let the main queue deliver them.
while !mainStore.state.query.isEmpty, view.shownQueries.last != mainStore.state.query {
  await Task.yield()
}
