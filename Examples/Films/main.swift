import Statecraft

// The films list from the classic ReSwift tutorial, with an async action creator.
// `swift run films` reads the bundled films after a simulated delay;
// `swift run films --live` asks the Star Wars API; `--delay-ms N` changes the delay.

let mainStore = Store<AppState>(reducer: appReducer, state: nil)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--live") {
  mainStore.thunkEnvironment[FilmServiceKey.self] = StarWarsAPIFilmService()
} else if let flag = arguments.firstIndex(of: "--delay-ms"), flag + 1 < arguments.count,
  let milliseconds = Int(arguments[flag + 1])
{
  mainStore.thunkEnvironment[FilmServiceKey.self] = BundledFilmService(
    delay: .milliseconds(milliseconds))
}
mainStore.thunkErrorHandler = nil  // the view shows the error

let view = FilmsView(store: mainStore)
view.appear()
_ = try? await mainStore.dispatch(fetchFilms()).value
// The thunk committed its last state on another thread; its delivery is queued on the main
// queue ahead of this task, so yielding lets the view render it.
while !view.hasShownResult {
  await Task.yield()
}
