import Dispatch
import Statecraft
import StatecraftTesting
import XCTest

/// ReSwift-Thunk's own kind of tests: the middleware called by hand, and ExpectThunk.
final class ReSwiftStyleThunkTests: XCTestCase {
  func testAnActionGoesToNext() {
    let middleware: Middleware<AppState> = createThunkMiddleware()
    let calls = Calls()
    middleware({ _ in }, { nil })({ _ in calls.next += 1 })(IncreaseCounter())
    XCTAssertEqual(calls.next, 1)
  }

  func testTheMiddlewareRunsTheThunkBodyWithWhatItWasHanded() {
    let middleware: Middleware<AppState> = createThunkMiddleware()
    let calls = Calls()
    let thunk = Thunk<AppState> { dispatch, getState in
      dispatch(SetName(name: getState()?.name))
    }
    middleware({ calls.dispatched.append($0) }, { AppState(name: "handed") })({ _ in
      calls.next += 1
    })(thunk)
    XCTAssertEqual(calls.next, 0)
    XCTAssertEqual(calls.dispatched.count, 1)
    XCTAssertEqual(calls.dispatched.first as? SetName, SetName(name: "handed"))
  }

  /// ReSwift-Thunk's initializer with its label written out, as code that does not use a
  /// trailing closure calls it.
  func testTheInitializerTakesReSwiftThunksBodyLabel() {
    let store = Store<AppState>(reducer: appReducer, state: nil)
    store.dispatch(Thunk<AppState>(body: { dispatch, _ in dispatch(SetName(name: "labelled")) }))
    XCTAssertEqual(store.state.name, "labelled")
  }

  func testAThunkOfAnotherStateGoesToNext() {
    struct OtherState: StateType {}
    let middleware: Middleware<AppState> = createThunkMiddleware()
    let calls = Calls()
    let thunk = Thunk<OtherState> { _, _ in calls.bodyRuns += 1 }
    middleware({ _ in }, { nil })({ _ in calls.next += 1 })(thunk)
    XCTAssertEqual(calls.next, 1)
    XCTAssertEqual(calls.bodyRuns, 0)
  }

  func testTheMiddlewareInAStoreRunsAThunkDispatchedAsAnAction() {
    let store = Store<AppState>(
      reducer: appReducer, state: nil, middleware: [createThunkMiddleware()])
    let calls = Calls()
    let thunk: Action = Thunk<AppState> { _, _ in calls.bodyRuns += 1 }
    store.dispatch(thunk)
    XCTAssertEqual(calls.bodyRuns, 1)
  }

  func testExpectThunkRunsAsReSwiftThunks() {
    let thunk = Thunk<AppState> { dispatch, getState in
      dispatch(IncreaseCounter())
      XCTAssertNotNil(getState())
      dispatch(SetName(name: "a"))
      XCTAssertNil(getState())
    }
    let expect = ExpectThunk(thunk)
      .dispatches(IncreaseCounter())
      .getsState(AppState())
      .dispatches { action in XCTAssertEqual(action as? SetName, SetName(name: "a")) }
      .run()
    XCTAssertEqual(expect.dispatched.count, 2)
  }

  func testExpectThunkWaitsForDispatchesFromABackgroundQueue() {
    ExpectThunk(fetchFilms(["A New Hope"]))
      .getsState(AppState())
      .dispatches(SetName(name: "loading"))
      .dispatches(SetFilms(films: ["A New Hope"]))
      .wait(timeout: 5)
  }

  /// ReSwift-Thunk's `testExpectThunkWaits` shape: the thunk reads the state after its last
  /// dispatch, on another thread. The wait must not end before that read.
  func testExpectThunkWaitsForTheStatesReadAfterTheLastDispatch() {
    let thunk = Thunk<AppState> { dispatch, getState in
      DispatchQueue.global().async {
        dispatch(IncreaseCounter())
        // Makes it certain that a wait for the dispatches alone ends before the read; a wait
        // for the reads as well does not depend on how long this takes.
        usleep(50_000)
        XCTAssertNotNil(getState())
      }
    }
    ExpectThunk(thunk)
      .dispatches(IncreaseCounter())
      .getsState(AppState())
      .wait(timeout: 60)
  }
}

/// What the functions handed to a middleware saw. A class, not captured `var`s: the store calls
/// those functions from any thread, so they are `@Sendable`, and Swift 5 warns when one mutates a
/// captured variable.
final class Calls {
  var next = 0
  var bodyRuns = 0
  var dispatched: [Action] = []
}
