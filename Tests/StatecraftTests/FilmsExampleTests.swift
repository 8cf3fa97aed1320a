import Foundation
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import StatecraftTools
import Testing

@testable import Films

@Suite(.catchesHangs) struct FilmsExampleTests {
  private struct StubFilmService: FilmService {
    var result: Result<[Film], FilmServiceError>
    func films() async throws -> [Film] { try result.get() }
  }

  private static let hope = Film(
    title: "A New Hope", episodeID: 4, director: "George Lucas", releaseDate: "1977-05-25")
  private static let empire = Film(
    title: "The Empire Strikes Back", episodeID: 5, director: "Irvin Kershner",
    releaseDate: "1980-05-17")

  @Test func reducerHandlesTheLifecycleAsAPlainFunction() {
    let pending = ThunkLifecycle<[Film]>(name: "films/fetch", requestID: 1, phase: .pending)
    let loading = appReducer(action: pending, state: nil)
    #expect(loading.isLoading)
    let fulfilled = ThunkLifecycle<[Film]>(
      name: "films/fetch", requestID: 1, phase: .fulfilled([Self.hope]))
    let loaded = appReducer(action: fulfilled, state: loading)
    #expect(loaded == AppState(films: [Self.hope], isLoading: false, error: nil))
  }

  @MainActor
  @Test func fetchFilmsStepByStepWithATestStore() async {
    let store = TestStore(initialState: AppState(), reducer: appReducer)
    store.thunkEnvironment[FilmServiceKey.self] = StubFilmService(
      result: .success([Self.empire, Self.hope]))
    await store.send(fetchFilms())
    await store.receive(ThunkLifecycle<[Film]>.self) { $0.isLoading = true }
    await store.receive(ThunkLifecycle<[Film]>.self) {
      $0.films = [Self.hope, Self.empire]
      $0.isLoading = false
    }
    await store.finish()
  }

  @MainActor
  @Test func fetchFilmsDispatchesItsLifecycle() async {
    await ExpectThunk(fetchFilms())
      .environment(FilmServiceKey.self, StubFilmService(result: .success([Self.hope])))
      .getsState(AppState())
      .dispatches(ThunkLifecycle<[Film]>.self) { action in
        if case .pending = action.phase {} else { Issue.record("expected pending first") }
      }
      .dispatches(ThunkLifecycle<[Film]>.self) { action in
        if case .fulfilled(let films) = action.phase {
          #expect(films == [Self.hope])
        } else {
          Issue.record("expected fulfilled second")
        }
      }
      .run()
  }

  @MainActor
  @Test func viewRendersWhateverStateTheStubShows() {
    let stub = StoreStub(state: AppState(isLoading: true))
    var lines: [String] = []
    let view = FilmsView(store: stub.store) { lines.append($0) }
    view.appear()
    stub.setState(AppState(films: [Self.hope]))
    stub.setState(AppState(error: "offline"))
    #expect(
      lines == [
        "Loading films…", "Episode 4: A New Hope (1977)", "Could not load the films: offline",
      ])
    #expect(stub.actions.isEmpty)
  }

  @Test func fetchFilmsSortsWhatTheServiceReturns() async throws {
    let store = Store<AppState>(reducer: appReducer, state: nil)
    store.thunkEnvironment[FilmServiceKey.self] = StubFilmService(
      result: .success([Self.empire, Self.hope]))
    let films = try await store.dispatch(fetchFilms()).value
    #expect(films == [Self.hope, Self.empire])
    #expect(store.state.films == [Self.hope, Self.empire])
    #expect(!store.state.isLoading)
  }

  @Test func aFailingServiceEndsInTheErrorState() async {
    let store = Store<AppState>(reducer: appReducer, state: nil)
    store.thunkErrorHandler = nil
    store.thunkEnvironment[FilmServiceKey.self] = StubFilmService(
      result: .failure(.missingBundledData))
    await #expect(throws: FilmServiceError.self) { try await store.dispatch(fetchFilms()).value }
    #expect(store.state.error == FilmServiceError.missingBundledData.description)
    #expect(!store.state.isLoading)
  }

  @Test func bundledServiceReadsTheBundledFilms() async throws {
    let films = try await BundledFilmService(delay: .zero).films()
    #expect(films.count == 6)
    #expect(films.contains(Self.hope))
  }

  @Test func filmsExampleRendersLoadingThenTheSortedList() async throws {
    let output = try await runExample("films", arguments: ["--delay-ms", "0"])
    let lines = output.split(separator: "\n").map(String.init)
    #expect(
      lines == [
        "No films yet.",
        "Loading films…",
        "Episode 1: The Phantom Menace (1999)",
        "Episode 2: Attack of the Clones (2002)",
        "Episode 3: Revenge of the Sith (2005)",
        "Episode 4: A New Hope (1977)",
        "Episode 5: The Empire Strikes Back (1980)",
        "Episode 6: Return of the Jedi (1983)",
      ])
  }

  /// Issue 29: without the network, `--live` says so in a sentence and exits with 1.
  @Test func anUnreachableAPIGivesASentenceAndAFailingExitStatus() async throws {
    // The discard port on this machine: nothing listens, so the connection is refused at once.
    let run = try await runExampleToEnd(
      "films", arguments: ["--live", "--api-url", "http://127.0.0.1:9/api/films/"])
    #expect(run.status == 1)
    #expect(
      run.output.hasSuffix(
        "Could not load the films: 127.0.0.1 could not be reached (the connection was refused); "
          + "run without --live for the bundled films\n"))
    #expect(!run.output.contains("NSURLErrorDomain"))
  }

  @Test func theSearchIsRememberedAndTheSessionRecorded() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "films-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let stateFile = folder.appendingPathComponent("state.json").path
    let session = folder.appendingPathComponent("session.jsonl").path
    let first = try await runExample(
      "films",
      arguments: [
        "--delay-ms", "0", "--search", "hope", "--state-file", stateFile, "--record", session,
      ])
    #expect(first.hasSuffix("Episode 4: A New Hope (1977)\n"))
    #expect(!first.contains("Empire"))
    // The next run restores the search without being told.
    let second = try await runExample(
      "films", arguments: ["--delay-ms", "0", "--state-file", stateFile])
    #expect(second.split(separator: "\n").last == "Episode 4: A New Hope (1977)")
    let recording = try Recording(contentsOf: URL(fileURLWithPath: session), registry: filmActions)
    #expect(recording.entries.compactMap { $0.action as? SetQuery } == [SetQuery(query: "hope")])
    #expect(recording.entries.map(\.typeName).contains { $0.contains("ThunkLifecycle") })
  }

  @Test func theVisibleFilmsAreThoseWhoseTitleContainsTheQuery() {
    let state = AppState(films: [Self.hope, Self.empire])
    #expect(visibleFilms(AppState(films: state.films, query: "EMPIRE")) == [Self.empire])
    #expect(visibleFilms(state) == [Self.hope, Self.empire])
  }
}
