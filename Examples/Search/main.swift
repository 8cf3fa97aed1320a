import Dispatch
import Statecraft

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// Type-ahead search over a bundled list of characters. Each line on standard input is the
// search field's text after a keystroke: `swift run search`, then type `l`, `lu`, `luk`, each
// followed by return; q alone quits. A search waits 250 ms (`--debounce-ms N`) and a newer
// query cancels it.

let mainStore = Store<SearchState>(reducer: searchReducer, state: nil)
let arguments = Array(CommandLine.arguments.dropFirst())
if let flag = arguments.firstIndex(of: "--debounce-ms"), flag + 1 < arguments.count,
  let milliseconds = Int(arguments[flag + 1])
{
  mainStore.thunkEnvironment[DebounceKey.self] = .milliseconds(milliseconds)
}

print("type a name and return, as if typing in a search field (l, lu, luk); q quits")
func prompt() {
  print("> ", terminator: "")
  fflush(nil)
}

let view = ResultsView(store: mainStore)
view.appear()

// Keystrokes arrive on another thread, as they would from a text field's delegate.
let (searches, input) = AsyncStream.makeStream(of: ThunkTask<Void>.self)
prompt()
DispatchQueue.global().async {
  while let line = readLine(), line != "q" {
    input.yield(mainStore.dispatch(search(line)))
    prompt()
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
