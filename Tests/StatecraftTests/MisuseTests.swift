import Statecraft
import StatecraftTestSupport
import Testing

/// C11: misuse stops the process with a message that names the action and the fix.
///
/// Serialized: each test starts a child process, and eleven at once (under ThreadSanitizer in
/// CI, on 2 cores) kept other suites' tasks from a thread for seconds; a `TestStore` waiting 2 s
/// for a thunk to end failed that way once.
@Suite(.serialized, .catchesHangs) struct MisuseTests {
  @Test func dispatchFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Nested: Action {}
      struct Outer: Action {}
      nonisolated(unsafe) var store: Store<Int>?
      store = Store<Int>(
        reducer: { action, state in
          if action is Outer { store?.dispatch(Nested()) }
          return state ?? 0
        },
        state: 0
      )
      store?.dispatch(Outer())
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("dispatch(Nested()) was called from inside a reducer"))
    #expect(message.contains("while reducing Outer"))
    #expect(message.contains("middleware or a thunk"))
  }

  /// A round runs selectors and filters under the state lock (C13): a store call from one
  /// would wait for that lock forever, so it stops instead (C11).
  @Test func readingStateFromASelectorStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Tick: Action {}
      await MainActor.run {
        nonisolated(unsafe) var store: Store<Int>?
        store = Store<Int>(reducer: { _, state in (state ?? 0) + 1 }, state: 0)
        let recorder = Recorder<Int>()
        store?.subscribe(recorder) { $0.select { ($0 > 0 ? store?.state : nil) ?? 0 } }
        store?.dispatch(Tick())
      }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Store.state was called from a subscription's selector or filter"))
    #expect(message.contains("dispatch from the subscriber's newState"))
  }

  @Test func dispatchingFromAFilterStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Echo: Action {}
      struct Tick: Action {}
      await MainActor.run {
        nonisolated(unsafe) var store: Store<Int>?
        store = Store<Int>(reducer: { _, state in (state ?? 0) + 1 }, state: 0)
        let recorder = Recorder<Int>()
        store?.subscribe(recorder) {
          $0.skip(when: { _, new in
            if new == 1 { store?.dispatch(Echo()) }
            return false
          })
        }
        store?.dispatch(Tick())
      }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("dispatch(Echo()) was called from a subscription's selector"))
  }

  @Test func readingStateFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Peek: Action {}
      nonisolated(unsafe) var store: Store<Int>?
      store = Store<Int>(
        reducer: { action, state in
          if action is Peek { _ = store?.state }
          return state ?? 0
        },
        state: 0
      )
      store?.dispatch(Peek())
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Store.state was read from inside a reducer"))
    #expect(message.contains("while reducing Peek"))
  }

  /// The mark "this thread reduces store A" is per thread and per store: a reducer of A that
  /// reduces another store B on its way (a second store's reducer nested in the first) is not
  /// a misuse, and A's mark is back once B's reduction ends.
  @Test func aReducerThatDispatchesToAnotherStoreIsStillCheckedAfterwards() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      // If the check missed the read, the read would wait for the lock its own reducer holds:
      // the time limit ends that child, and the message expectations below fail, not hang.
      limitThisChildProcess()
      struct Log: Action {}
      struct Outer: Action {}
      let other = Store<Int>(reducer: { _, state in (state ?? 0) + 1 }, state: 0)
      nonisolated(unsafe) var store: Store<Int>?
      store = Store<Int>(
        reducer: { action, state in
          if action is Outer {
            other.dispatch(Log())
            precondition(other.state == 1, "the other store reduced and can be read")
            _ = store?.state
          }
          return state ?? 0
        },
        state: 0
      )
      store?.dispatch(Outer())
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Store.state was read from inside a reducer"))
    #expect(message.contains("while reducing Outer"))
  }

  @Test func subscribingFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Watch: Action {}
      await MainActor.run {
        nonisolated(unsafe) var store: Store<Int>?
        nonisolated(unsafe) var token: SubscriptionToken?
        store = Store<Int>(
          reducer: { action, state in
            if action is Watch {
              MainActor.assumeIsolated {
                token = store?.subscribe({ $0 }, receive: { _ in })
              }
            }
            return state ?? 0
          },
          state: 0
        )
        store?.dispatch(Watch())
        withExtendedLifetime(token) {}
      }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("subscribe was called from inside a reducer"))
    #expect(message.contains("while reducing Watch"))
  }

  @Test func aSubscriberThatAlwaysDispatchesStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Ping: Action {}
      await MainActor.run {
        let store = Store<Int>(reducer: { _, state in (state ?? 0) + 1 }, state: 0)
        let token = store.subscribe({ $0 }, receive: { _ in store.dispatch(Ping()) })
        withExtendedLifetime(token) {}
      }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("more than 10000 actions were dispatched"))
    #expect(message.contains("the last was Ping()"))
  }

  @Test func aMiddlewareThatAlwaysDispatchesStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Echo: Action {}
      let echo: Middleware<Int> = { dispatch, _ in
        { next in
          { action in
            next(action)
            dispatch(Echo())
          }
        }
      }
      let store = Store<Int>(reducer: { _, state in state ?? 0 }, state: 0, middleware: [echo])
      store.dispatch(Echo())
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("the last was Echo()"))
  }

  // Every store method stops inside a reducer, with the call and the action being reduced named;
  // none hangs (C11). Without these checks batch hung, unsubscribe hung, and a thunk's or a
  // sequence's side effect ran.

  @Test func batchFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      callFromReducer { store in store.batch {} }
    }
    expectMessage(result, contains: "Store.batch was called from inside a reducer")
  }

  @Test func unsubscribeFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      callFromReducer { store in store.unsubscribe(Trigger.Box()) }
    }
    expectMessage(result, contains: "Store.unsubscribe was called from inside a reducer")
  }

  @Test func dispatchingAThunkFromAReducerStopsBeforeItRuns() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent, \.standardOutputContent]
    ) {
      limitThisChildProcess()
      callFromReducer { store in
        store.dispatch(Thunk<Int> { _, _ in print("the thunk ran") })
      }
    }
    expectMessage(result, contains: "Store.dispatch(Thunk<Int>) was called from inside a reducer")
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(!output.contains("the thunk ran"))
  }

  @Test func dispatchingAnAsyncThunkFromAReducerNamesItByItsName() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      callFromReducer { store in
        store.dispatch(AsyncThunk<Int, Int>("user/load", id: "user") { _ in 7 })
      }
    }
    expectMessage(
      result,
      contains: #"Store.dispatch(AsyncThunk "user/load" with id "user") was called from inside"#)
  }

  @Test func cancellingThunksFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      callFromReducer { store in store.cancelThunks(id: "search") }
    }
    expectMessage(
      result, contains: #"Store.cancelThunks(id: "search") was called from inside a reducer"#)
  }

  @available(*, deprecated, message: "tests the deprecated action creators")
  @Test func dispatchingAnActionCreatorFromAReducerNamesIt() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      callFromReducer { store in store.dispatch { _, _ in Trigger() } }
    }
    expectMessage(result, contains: "dispatch was called with an action creator from inside")
  }

  private func expectMessage(_ result: ExitTest.Result?, contains text: String) {
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains(text))
    #expect(message.contains("while reducing Trigger"))
  }
}

/// The action whose reducer calls the store in the tests above.
struct Trigger: Action {
  /// A subscriber to unsubscribe, made anywhere.
  final class Box: StoreSubscriber {
    nonisolated init() {}
    func newState(state: Int) {}
  }
}

/// Makes a store whose reducer calls `call` with the store when it reduces ``Trigger``, and
/// dispatches one.
func callFromReducer(_ call: @escaping @Sendable (Store<Int>) -> Void) {
  nonisolated(unsafe) var store: Store<Int>?
  store = Store<Int>(
    reducer: { action, state in
      if action is Trigger, let store { call(store) }
      return state ?? 0
    },
    state: 0
  )
  store?.dispatch(Trigger())
}
