import Dispatch
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@MainActor
@Suite(.bounded(minutes: 1)) struct ScopeTests {
  struct App: Equatable, Sendable {
    var profile = Profile()
    var counter = 0
  }

  struct Profile: Equatable, Sendable {
    var name = ""
    var saves = 0
  }

  enum ProfileAction: Action {
    case rename(String)
    case save
  }
  struct Tick: Action {}

  static let reducer = combineReducers(
    scopedReducer(\App.profile) { (profile, action: ProfileAction) in
      switch action {
      case .rename(let name): profile.name = name
      case .save: profile.saves += 1
      }
    },
    { (state: inout App, action: any Action) in if action is Tick { state.counter += 1 } }
  )

  @Test func aScopeSharesTheStateAndDispatchesToTheRoot() {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    profile.dispatch(ProfileAction.rename("Leia"))
    #expect(root.state.profile.name == "Leia")
    #expect(profile.state.name == "Leia")
    root.dispatch(ProfileAction.save)
    #expect(profile.state.saves == 1)
  }

  @Test func scopeSubscribersHearOnlyChangesToTheirSlice() {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    let recorder = RecordingSubscriber<Profile>()
    profile.subscribe(recorder)
    for _ in 0..<5 { root.dispatch(Tick()) }
    root.dispatch(ProfileAction.rename("Han"))
    #expect(recorder.values == [Profile(), Profile(name: "Han")])
  }

  @Test func scopesOfScopes() {
    let root = Store(reducer: Self.reducer, state: App())
    let name = root.scope(\.profile).scope(\.name)
    let recorder = RecordingSubscriber<String>()
    name.subscribe(recorder)
    name.dispatch(ProfileAction.rename("Luke"))
    #expect(recorder.values == ["", "Luke"])
    #expect(root.state.profile.name == "Luke")
  }

  @Test func thunksDispatchedToAScopeReachTheRoot() async throws {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    try await profile.dispatch(
      Thunk<Profile> { context in
        context.dispatch(ProfileAction.rename("Rey"))
        context.dispatch(ProfileAction.save)
      }
    ).value
    #expect(root.state.profile == Profile(name: "Rey", saves: 1))
  }

  @Test func aReleasedScopeStopsFollowingTheRoot() {
    let root = Store(reducer: Self.reducer, state: App())
    weak var weakScope: Store<Profile>?
    do {
      let profile = root.scope(\.profile)
      weakScope = profile
    }
    #expect(weakScope == nil)
    root.dispatch(ProfileAction.save)  // nothing left to notify
    #expect(root.state.profile.saves == 1)
  }

  @Test func aScopeKeptOnlyByItsSubscribersKeepsDelivering() {
    // As in viewDidLoad: the scope is a local, the view controller is the subscriber.
    let root = Store(reducer: Self.reducer, state: App())
    let recorder = RecordingSubscriber<String>()
    do {
      let profile = root.scope(\.profile)
      profile.subscribe(recorder) { $0.select(\.name) }
    }
    root.dispatch(ProfileAction.rename("Leia"))
    root.dispatch(ProfileAction.rename("Han"))
    #expect(recorder.values == ["", "Leia", "Han"])
  }

  @Test func aScopeWithoutSubscribersIsReleased() {
    let root = Store(reducer: Self.reducer, state: App())
    let recorder = RecordingSubscriber<String>()
    weak var weakScope: Store<Profile>?
    do {
      let profile = root.scope(\.profile)
      profile.subscribe(recorder) { $0.select(\.name) }
      profile.unsubscribe(recorder)
      weakScope = profile
    }
    #expect(weakScope == nil)
    root.dispatch(ProfileAction.rename("Leia"))
    #expect(recorder.values == [""])
  }

  @Test func aRootWithASubscribedScopeIsStillReleased() {
    let recorder = RecordingSubscriber<String>()
    weak var weakRoot: Store<App>?
    weak var weakScope: Store<Profile>?
    do {
      let root = Store(reducer: Self.reducer, state: App())
      let profile = root.scope(\.profile)
      profile.subscribe(recorder) { $0.select(\.name) }
      weakRoot = root
      weakScope = profile
    }
    #expect(weakRoot == nil)
    #expect(weakScope == nil)
  }

  @Test func aScopesStateIsCurrentBeforeTheMainQueueDelivers() {
    // The main queue is held by this test while another thread dispatches and reads: a scope
    // that kept a copy of its slice would still hold the old one here.
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    let recorder = RecordingSubscriber<String>()
    profile.subscribe(recorder) { $0.select(\.name) }
    let seen = DispatchQueue.global().sync {
      root.dispatch(ProfileAction.rename("Finn"))
      return profile.state.name
    }
    #expect(seen == "Finn")
    #expect(recorder.values == [""])  // delivered on the main queue, later
  }

  /// A scope has no middleware or reducer of its own: a batch on it is one batch on its root,
  /// reduced together and delivered once, through the root's middleware.
  @Test func aBatchOnAScopeIsOneBatchOfTheRoot() {
    let log = Log<String>()
    let logger: Middleware<App> = { _, _ in
      { next in
        { action in
          log.append("\(type(of: action))")
          next(action)
        }
      }
    }
    let root = Store<App>(reducer: Self.reducer, state: App(), middleware: [logger])
    let scope = root.scope(\.profile)
    let names = RecordingSubscriber<String>()
    scope.subscribe(names) { $0.select(\.name) }
    scope.batch {
      scope.dispatch(ProfileAction.rename("a"))
      scope.dispatch(ProfileAction.rename("b"))
    }
    #expect(names.values == ["", "b"])
    #expect(log.elements.count == 2)
    #expect(root.state.profile.name == "b")
    scope._defaultDispatch(action: ProfileAction.save)
    #expect(
      log.elements.count == 3, "a scope's _defaultDispatch goes through the root's middleware")
    #expect(root.state.profile.saves == 1)
  }

  @Test func middlewareOnAScopeStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess(toSeconds: 20)
      struct Counter: Equatable, Sendable { var value = 0 }
      await MainActor.run {
        let root = Store(reducer: { (_: inout Counter, _: any Action) in }, state: Counter())
        let scope = root.scope(\.value)
        scope.middleware = [{ _, _ in { next in next } }]
        withExtendedLifetime(root) {}
      }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("middleware (or a dispatchFunction) was set on a scope of Int"))
    #expect(message.contains("set the middleware of that store instead"))
  }

  @Test func readingAScopeAfterItsRootIsReleasedStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess(toSeconds: 20)
      struct Counter: Equatable, Sendable { var value = 0 }
      let scope = await MainActor.run {
        Store(reducer: { (_: inout Counter, _: any Action) in }, state: Counter()).scope(\.value)
      }
      _ = scope.state
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("a scope whose root store was released"))
    #expect(message.contains("Keep the root store"))
  }
}
