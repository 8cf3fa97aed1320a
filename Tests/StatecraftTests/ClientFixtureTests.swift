import ClientFixture
import ClientMainActorFixture
import Statecraft
import StatecraftTestSupport
import Testing

/// The client fixtures prove that app code compiles in Swift 6 mode without annotations; these
/// tests check that it also works.
@MainActor
@Suite(.catchesHangs) struct ClientFixtureTests {
  @Test func globalStoreViewAndBackgroundDispatch() async {
    let controller = FilmsViewController()
    controller.viewDidLoad()
    await waitUntil { controller.films == ["Return of the Jedi"] }
    #expect(controller.films == ["Return of the Jedi"])
    loadFilmsInTask()
    await waitUntil { controller.films == ["The Empire Strikes Back"] }
    #expect(controller.films == ["The Empire Strikes Back"])
    loadFilmsInBackground()
    await waitUntil { controller.films == ["A New Hope"] && !mainStore.state.isLoading }
    #expect(controller.films == ["A New Hope"])
  }

  @Test func defaultMainActorIsolationModule() {
    #expect(MainActorClient.incrementAndRead() == 1)
  }

  @Test func aComposedAppWithASelectorAndAScopeWithDefaultMainActorIsolation() {
    let (names, counts) = MainActorComposedChecks.run()
    #expect(names == ["", "Leia"])
    #expect(counts == [0], "the rename does not change the posts the selector derives")
  }

  @Test func theFilmsAppsTestsWithDefaultMainActorIsolation() async {
    await MainActorFilmsChecks.reducerThroughTestStore()
    await MainActorFilmsChecks.thunkThroughExpectThunk()
  }

  @available(*, deprecated, message: "the films app dispatches a ReSwift action creator")
  @Test func theFilmsAppWithDefaultMainActorIsolationLoadsFromOtherThreads() async {
    let app = MainActorFilmsClient()
    #expect(app.titles == [])
    app.refresh()
    #expect(app.isLoading)
    await waitUntil { app.titles == ["A New Hope"] && !app.isLoading }
    #expect(app.titles == ["A New Hope"])
    app.loadSequel()
    await waitUntil { app.titles == ["The Empire Strikes Back"] }
    #expect(app.titles == ["The Empire Strikes Back"])
  }

  @Test func theLibraryAppWithDefaultMainActorIsolation() async {
    await MainActorFilmsChecks.composedReducerThroughTestStore()
    await MainActorFilmsChecks.shelfThunkThroughExpectThunk()
    let app = MainActorLibraryClient()
    #expect(app.titles == [])
    app.load()
    await waitUntil { app.titles == ["Dune", "Emma"] }
    #expect(app.titles == ["Dune", "Emma"])
    app.sortByTitleFromAnotherThread()
    await waitUntil { app.sortsByTitle }
    #expect(app.sortsByTitle)
    #expect(await app.savedSortsByTitle() == true)
  }
}
