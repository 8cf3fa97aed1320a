import Statecraft
import StatecraftTesting
import Testing

@testable import Films

private struct StubFilmService: FilmService {
  var films: [Film]
  func films() async throws -> [Film] { films }
}

private let hope = Film(
  title: "A New Hope", episodeID: 4, director: "George Lucas", releaseDate: "1977-05-25")
private let empire = Film(
  title: "The Empire Strikes Back", episodeID: 5, director: "Irvin Kershner",
  releaseDate: "1980-05-17")

@Test func theReducerIsAPlainFunction() {
  let pending = ThunkLifecycle<[Film]>(name: "films/fetch", requestID: 1, phase: .pending)
  let loading = appReducer(action: pending, state: nil)
  #expect(loading.isLoading)
}

@MainActor @Test func fetchingFilmsShowsThemInOrder() async {
  let store = TestStore(initialState: AppState(), reducer: appReducer)
  store.thunkEnvironment[FilmServiceKey.self] = StubFilmService(films: [empire, hope])
  await store.send(fetchFilms())
  await store.receive(ThunkLifecycle<[Film]>.self) { $0.isLoading = true }
  await store.receive(ThunkLifecycle<[Film]>.self) {
    $0.films = [hope, empire]
    $0.isLoading = false
  }
  await store.finish()
}
