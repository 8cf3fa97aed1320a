import Dispatch
import Statecraft

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
let (searches, input) = AsyncStream.makeStream(of: ThunkTask<Void>.self)
DispatchQueue.global().async {
  while let line = readLine() {
    input.yield(mainStore.dispatch(search(line)))
  }
  input.finish()
}
var lastSearch: ThunkTask<Void>?
for await search in searches { lastSearch = search }
_ = try? await lastSearch?.value
// The last results were committed on another thread; let the main queue deliver them.
while !mainStore.state.query.isEmpty, view.shownQueries.last != mainStore.state.query {
  await Task.yield()
}
