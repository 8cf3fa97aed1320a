import Statecraft
import Testing

/// C11: misuse stops the process with a message that names the action and the fix.
@Suite struct MisuseTests {
  @Test func dispatchFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
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

  @Test func readingStateFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
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

  @Test func subscribingFromAReducerStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
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
}
