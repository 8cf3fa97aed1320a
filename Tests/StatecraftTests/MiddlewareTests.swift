import Dispatch
import Statecraft
import StatecraftTestSupport
import Testing

@Suite(.catchesHangs) struct MiddlewareTests {
  private func recording(_ name: String, into log: Log<String>) -> Middleware<TestState> {
    { _, _ in
      { next in
        { action in
          log.append("\(name) \(type(of: action))")
          next(action)
        }
      }
    }
  }

  @Test func theFirstMiddlewareSeesEachActionFirst() {
    let log = Log<String>()
    let store = makeStore(middleware: [
      recording("first", into: log), recording("second", into: log),
    ])
    store.dispatch(Increment())
    #expect(log.elements == ["first Increment", "second Increment"])
    #expect(store.state.count == 1)
  }

  @Test func middlewareCanSwallowAnAction() {
    let dropLabels: Middleware<TestState> = { _, _ in
      { next in { action in if !(action is SetLabel) { next(action) } } }
    }
    let store = makeStore(middleware: [dropLabels])
    store.dispatch(SetLabel(label: "dropped"))
    store.dispatch(Increment())
    #expect(store.state == TestState(count: 1))
  }

  @Test func middlewareCanTransformAnAction() {
    let double: Middleware<TestState> = { _, _ in
      { next in { action in next(action is Increment ? Add(amount: 2) : action) } }
    }
    let store = makeStore(middleware: [double])
    store.dispatch(Increment())
    #expect(store.state.count == 2)
  }

  @Test func middlewareCanAddActionsWithNext() {
    let twice: Middleware<TestState> = { _, _ in
      { next in
        { action in
          next(action)
          next(action)
        }
      }
    }
    let store = makeStore(middleware: [twice])
    store.dispatch(Increment())
    #expect(store.state.count == 2)
  }

  @Test func middlewareCanReadTheCommittedState() {
    let seen = Log<Int>()
    let spy: Middleware<TestState> = { _, getState in
      { next in
        { action in
          seen.append(getState()?.count ?? -1)
          next(action)
          seen.append(getState()?.count ?? -1)
        }
      }
    }
    let store = makeStore(middleware: [spy])
    store.dispatch(Increment())
    #expect(seen.elements == [0, 1])
  }

  @Test func middlewareCanDelayAnActionToAnotherThread() async {
    let delay: Middleware<TestState> = { _, _ in
      { next in
        { action in
          DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { next(action) }
        }
      }
    }
    let store = makeStore(middleware: [delay])
    store.dispatch(Increment())
    #expect(store.state.count == 0)
    #expect(await eventually { store.state.count == 1 })
  }

  @MainActor
  @Test func delayedActionsReachSubscribersOnTheMainQueue() async {
    let delay: Middleware<TestState> = { _, _ in
      { next in { action in DispatchQueue.global().async { next(action) } } }
    }
    let store = makeStore(middleware: [delay])
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    await waitUntil { recorder.values.count == 2 }
    #expect(recorder.values == [0, 1])
    #expect(recorder.allOnMainQueue)
  }
}
