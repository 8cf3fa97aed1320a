// The films app's tests as they are written in a target with default main-actor isolation: a
// TestStore over the reducer function and an ExpectThunk over the thunk, with no annotation.
// StatecraftTests runs them.
import Statecraft
import StatecraftTesting

public enum MainActorFilmsChecks {
  public static func reducerThroughTestStore() async {
    let store = TestStore(initialState: FilmsState(), reducer: filmsReducer)
    store.thunkEnvironment[FilmServiceKey.self] = BundledFilms()
    await store.send(SetLoading(isLoading: true)) { $0.isLoading = true }
    await store.send(SetFilms(films: [Film(title: "A New Hope")])) {
      $0.films = [Film(title: "A New Hope")]
    }
    await store.send(loadFilms)
    // The thunk's actions hop to the main queue, which parallel suites share: generous bounds.
    await store.receive(SetLoading.self, timeout: .seconds(10))
    await store.receive(SetFilms.self, timeout: .seconds(10))
    await store.receive(SetLoading.self, timeout: .seconds(10)) { $0.isLoading = false }
    await store.finish(timeout: .seconds(10))
  }

  public static func thunkThroughExpectThunk() async {
    await ExpectThunk(loadFilms)
      .environment(FilmServiceKey.self, BundledFilms())
      .getsState(FilmsState())
      .dispatches(SetLoading.self)
      .dispatches(SetFilms.self)
      .dispatches(SetLoading.self)
      .run()
  }

  public static func composedReducerThroughTestStore() async {
    let store = TestStore(initialState: LibraryState(), reducer: libraryReducer)
    store.thunkEnvironment[CatalogKey.self] = BundledCatalog()
    await store.send(SortByTitle(isOn: true)) { $0.preferences.sortsByTitle = true }
    await store.send(loadShelf)
    await store.receive(ShelfAction.self, timeout: .seconds(10)) { $0.shelf.isLoading = true }
    await store.receive(ShelfAction.self, timeout: .seconds(10)) {
      $0.shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
      $0.shelf.isLoading = false
    }
    await store.finish(timeout: .seconds(10))
  }

  public static func shelfThunkThroughExpectThunk() async {
    await ExpectThunk(loadShelf)
      .environment(CatalogKey.self, BundledCatalog())
      .getsState(LibraryState())
      .dispatches(ShelfAction.self)
      .dispatches(ShelfAction.self)
      .run()
  }
}
