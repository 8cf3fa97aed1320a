import Dispatch
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import StatecraftTesting
import Testing

@MainActor
@Suite(.catchesHangs) struct ScopeTests {
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
      limitThisChildProcess()
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
      limitThisChildProcess()
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
  // MARK: A scope is a node in its root's rounds (issue 28)

  /// The scope's subscribers are notified at the place its first subscriber took in the root's
  /// order, inside the root's round.
  @Test func scopeSubscribersAreNotifiedAtTheirNodesPlaceInTheRootsOrder() {
    let root = Store(reducer: Self.reducer, state: App())
    let order = Log<String>()
    let first = Recorder<Int>()
    first.onNewState = { _ in order.append("root 1") }
    let scoped = Recorder<String>()
    scoped.onNewState = { _ in order.append("scope") }
    let last = Recorder<Int>()
    last.onNewState = { _ in order.append("root 2") }
    let profile = root.scope(\.profile)
    root.subscribe(first) { $0.select(\.counter) }
    profile.subscribe(scoped) { $0.select(\.name) }
    root.subscribe(last) { $0.select(\.counter) }
    let before = order.elements.count
    root.batch {
      root.dispatch(Tick())
      root.dispatch(ProfileAction.rename("Ahsoka"))
    }
    #expect(Array(order.elements.dropFirst(before)) == ["root 1", "scope", "root 2"])
  }

  /// While a scope has subscribers it is one subscription of its root; with none, none.
  @Test func aScopeIsOneSubscriptionOfItsRootWhileItHasSubscribers() async {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    #expect(root._subscriptionCounts.standing == 0)
    let recorders = (0..<3).map { _ in Recorder<String>() }
    for recorder in recorders { profile.subscribe(recorder) { $0.select(\.name) } }
    #expect(root._subscriptionCounts.standing == 1)
    #expect(profile._subscriptionCounts.standing == 3)
    profile.unsubscribe(recorders[0])
    // The last ones leave from another thread, as a deinit may.
    await Task.detached {
      profile.unsubscribe(recorders[1])
      profile.unsubscribe(recorders[2])
    }.value
    #expect(profile._subscriptionCounts.standing == 0)
    #expect(root._subscriptionCounts.standing == 0)
    // Subscribing again attaches the scope again.
    let again = Recorder<String>()
    profile.subscribe(again) { $0.select(\.name) }
    root.dispatch(ProfileAction.rename("Cal"))
    #expect(again.values == ["", "Cal"])
    #expect(root._subscriptionCounts.standing == 1)
  }

  /// A subscriber of a scope that subscribes, unsubscribes or dispatches while the scope's
  /// subscribers are notified changes nothing under the notification (C4, C10).
  @Test func scopeSubscribersMaySubscribeUnsubscribeAndDispatchWhileNotified() {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    let late = Recorder<String>()
    let gone = Recorder<String>()
    let first = Recorder<String>()
    // More than the pass has room for: it grows in the next round, not under this one.
    let extra = (0..<40).map { _ in Recorder<String>() }
    first.onNewState = { name in
      guard name == "Leia" else { return }
      profile.unsubscribe(gone)
      profile.subscribe(late) { $0.select(\.name) }
      for recorder in extra {
        profile.subscribe(recorder) { $0.select(\.name) }
      }
      profile.dispatch(ProfileAction.save)  // queued after this round (C4)
    }
    let saves = Recorder<Int>()
    profile.subscribe(first) { $0.select(\.name) }
    profile.subscribe(gone) { $0.select(\.name) }
    profile.subscribe(saves) { $0.select(\.saves) }
    profile.dispatch(ProfileAction.rename("Leia"))
    #expect(first.values == ["", "Leia"])
    #expect(gone.values == [""], "unsubscribed before its turn in the round")
    #expect(late.values == ["Leia"])
    #expect(extra.allSatisfy { $0.values == ["Leia"] })
    #expect(saves.values == [0, 1])
  }

  /// Listeners of a scope hear its root's actions (the root reduces them), and a scope's
  /// `condition` tests the slice.
  @Test func aScopesListenersHearTheRootsActions() async throws {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    let taking = profile.dispatch(
      Thunk<Profile> { context in
        _ = try await context.take(where: { $0 is Tick }, timeout: .patience)
        context.dispatch(ProfileAction.save)
      })
    let done = Guarded(false)
    // The thunk may not wait yet: only actions after it does count, so keep dispatching.
    let feeder = Task.detached {
      while !done.withLock({ $0 }) {
        root.dispatch(Tick())
        await MonotonicClock.sleep(for: .milliseconds(1))
      }
    }
    try await taking.value
    done.withLock { $0 = true }
    await feeder.value
    #expect(root.state.profile.saves == 1)

    let waiting = profile.dispatch(
      Thunk<Profile> { context in
        try await context.condition({ $0.name == "Din" }, timeout: .patience)
        context.dispatch(ProfileAction.save)
      })
    var actions = profile.actions().makeAsyncIterator()
    root.dispatch(ProfileAction.rename("Din"))
    try await waiting.value
    #expect(root.state.profile.saves == 2)
    #expect(await actions.next() is ProfileAction)
  }

  /// A memoized selector shared by a scope's subscribers runs once for each slice.
  @Test func aMemoizedSelectorRunsOncePerSliceForAScopesSubscribers() {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    let runs = Log<String>()
    let shout = createSelector(
      { (profile: Profile) in profile.name },
      { name in
        runs.append(name)
        return name.uppercased()
      })
    let recorders = (0..<5).map { _ in Recorder<String>() }
    for recorder in recorders { profile.subscribe(recorder) { $0.select(shout) } }
    let before = runs.elements.count
    root.dispatch(ProfileAction.rename("Kes"))
    #expect(recorders.allSatisfy { $0.values.last == "KES" })
    #expect(runs.elements.count - before == 1)
  }

  /// A scope of a scope and its parent each follow the root on their own.
  @Test func aScopeOfAScopeAndItsParentEachFollowTheRoot() {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    let saves = profile.scope(\.saves)
    let profiles = Recorder<Profile>()
    let counts = Recorder<Int>()
    profile.subscribe(profiles)
    saves.subscribe(counts)
    #expect(root._subscriptionCounts.standing == 2)
    root.dispatch(ProfileAction.rename("Bo"))
    root.dispatch(ProfileAction.save)
    root.dispatch(Tick())
    #expect(profiles.values.map(\.saves) == [0, 0, 1])
    #expect(counts.values == [0, 1])
  }

  /// A scope's closure subscription ends with its token, from any thread.
  @Test func aScopesTokenEndsItsSubscriptionFromAnyThread() async {
    let root = Store(reducer: Self.reducer, state: App())
    let profile = root.scope(\.profile)
    let names = Log<String>()
    let token = profile.subscribe({ $0.select(\.name) }, receive: { names.append($0) })
    root.dispatch(ProfileAction.rename("Fennec"))
    await Task.detached { token.cancel() }.value
    root.dispatch(ProfileAction.rename("Omega"))
    #expect(names.elements == ["", "Fennec"])
    #expect(root._subscriptionCounts.standing == 0)
  }
  /// A slice that is not `Equatable` is scoped too; its subscriptions skip their own repeats.
  @Test func aSliceThatIsNotEquatableIsScopedToo() {
    struct Settings: Sendable {
      var theme = "light"
      var saves = 0
    }
    struct Root: Sendable {
      var settings = Settings()
      var ticks = 0
    }
    struct Save: Action {}
    let root = Store<Root>(
      reducer: { (state: inout Root, action: any Action) in
        if action is Save { state.settings.saves += 1 } else { state.ticks += 1 }
      }, state: Root())
    let settings = root.scope(\.settings)
    let saves = Recorder<Int>()
    settings.subscribe(saves) { $0.select(\.saves) }
    root.dispatch(Tick())
    root.dispatch(Save())
    root.dispatch(Tick())
    #expect(saves.values == [0, 1])
    #expect(settings.state.saves == 1)
  }

  /// C8 for a scope's first subscriber: a commit from another thread while it subscribes (here,
  /// while the slice is first read) reaches it, although the root had no subscription yet to be
  /// notified of it.
  @Test func aScopesFirstSubscriberGetsACommitMadeWhileItSubscribes() {
    struct Root: Sendable {
      static let onRead = Guarded<(@Sendable () -> Void)?>(nil)
      var ticks = 0
      var observedTicks: Int {
        Self.onRead.withLock { $0.take() }?()
        return ticks
      }
    }
    let root = Store<Root>(
      reducer: { (state: inout Root, action: any Action) in
        if action is Tick { state.ticks += 1 }
      }, state: Root())
    let ticks = root.scope(\.observedTicks)
    Root.onRead.withLock {
      $0 = { DispatchQueue.global().sync { root.dispatch(Tick()) } }
    }
    let recorder = RecordingSubscriber<Int>()
    ticks.subscribe(recorder)
    #expect(root.state.ticks == 1)
    #expect(recorder.values == [1])
    root.dispatch(Tick())
    #expect(recorder.values == [1, 2])
  }
}
