import Foundation
import Statecraft
import StatecraftTools

// The films list from the classic ReSwift tutorial, loaded by an `AsyncThunk`.
// `swift run films` reads the bundled films after a simulated delay;
// `swift run films --live` asks the Star Wars API (`--api-url URL` another address);
// `--delay-ms N` changes the delay.
// `--search TEXT` shows only the films whose title contains TEXT, `--state-file PATH` keeps
// the search between runs, and `--record FILE` records the session's actions.

let arguments = Array(CommandLine.arguments.dropFirst())
func value(after flag: String) -> String? {
  arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

let persistence = value(after: "--state-file").map {
  StatePersistence<AppState, String>(file: URL(fileURLWithPath: $0), select: { $0.query })
}
var initial = AppState()
if case .success(let query?) = persistence?.restore() { initial.query = query }

let recorder = value(after: "--record").flatMap {
  try? ActionRecorder<AppState>(file: URL(fileURLWithPath: $0), registry: filmActions)
}

let mainStore = Store<AppState>(
  reducer: appReducer, state: initial,
  middleware: [persistence?.middleware(), recorder?.middleware()].compactMap { $0 })

if arguments.contains("--live") {
  var service = StarWarsAPIFilmService()
  if let address = value(after: "--api-url") { service.endpoint = URL(string: address) }
  mainStore.thunkEnvironment[FilmServiceKey.self] = service
} else if let text = value(after: "--delay-ms"), let milliseconds = Int(text) {
  mainStore.thunkEnvironment[FilmServiceKey.self] = BundledFilmService(
    delay: .milliseconds(milliseconds))
}
mainStore.thunkErrorHandler = nil  // the view shows the error
if let query = value(after: "--search") { mainStore.dispatch(SetQuery(query: query)) }

let view = FilmsView(store: mainStore)
view.appear()
_ = try? await mainStore.dispatch(fetchFilms()).value
// The thunk committed its last state on another thread; a round on the main queue delivers it,
// within a millisecond of the last one (C7), so yielding until then lets the view render it.
while !view.hasShownResult {
  await Task.yield()
}
recorder?.close()
await persistence?.flush()
if mainStore.state.error != nil { exit(1) }
