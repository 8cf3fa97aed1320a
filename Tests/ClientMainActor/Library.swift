// The richer app of issue 14, as a new user writes it in a target with default main-actor
// isolation: feature reducers composed with combineReducers and scopedReducer, a thunk that reads
// a service from the environment, and the Codable library persisted with StatecraftTools.
import Dispatch
import Foundation
import Statecraft
import StatecraftTools

struct Book: Codable, Equatable {
  var title: String
}

struct Shelf: Codable, Equatable {
  var books: [Book] = []
  var isLoading = false
}

struct Preferences: Codable, Equatable {
  var sortsByTitle = false
}

struct LibraryState: Codable, Equatable {
  var shelf = Shelf()
  var preferences = Preferences()
}

enum ShelfAction: Action {
  case loading
  case loaded([Book])
}

struct SortByTitle: Action {
  let isOn: Bool
}

func shelfReducer(state: inout Shelf, action: ShelfAction) {
  switch action {
  case .loading: state.isLoading = true
  case .loaded(let books):
    state.books = books
    state.isLoading = false
  }
}

func preferencesReducer(action: Action, state: Preferences?) -> Preferences {
  var state = state ?? Preferences()
  if let action = action as? SortByTitle { state.sortsByTitle = action.isOn }
  return state
}

let libraryReducer = combineReducers(
  scopedReducer(\LibraryState.shelf, shelfReducer),
  scopedReducer(\LibraryState.preferences, inPlace(preferencesReducer))
)

// The one `Sendable` here: thunks call the service from other threads, and the compiler's
// error ("type 'any Catalog' does not conform to the 'Sendable' protocol") names the fix.
protocol Catalog: Sendable {
  func books() async throws -> [Book]
}

struct BundledCatalog: Catalog {
  func books() async throws -> [Book] { [Book(title: "Dune"), Book(title: "Emma")] }
}

enum CatalogKey: ThunkEnvironmentKey {
  static let defaultValue: any Catalog = BundledCatalog()
}

let loadShelf = Thunk<LibraryState> { context in
  context.dispatch(ShelfAction.loading)
  let books = try await context.environment[CatalogKey.self].books()
  context.dispatch(ShelfAction.loaded(books))
}

// AppDelegate.swift: the preferences outlive the app.
let preferencesFile = FileManager.default.temporaryDirectory
  .appendingPathComponent("statecraft-library-\(ProcessInfo.processInfo.processIdentifier)")
  .appendingPathComponent("preferences.json")

let preferencesPersistence = StatePersistence<LibraryState, Preferences>(
  file: preferencesFile, debounce: .milliseconds(10), select: \.preferences)

func restoredLibrary() -> LibraryState {
  var state = LibraryState()
  if case .success(let preferences?) = preferencesPersistence.restore() {
    state.preferences = preferences
  }
  return state
}

nonisolated let libraryStore = Store(
  reducer: libraryReducer,
  state: restoredLibrary(),
  middleware: [preferencesPersistence.middleware(), createThunkMiddleware()]
)

final class ShelfViewController: StoreSubscriber {
  private(set) var titles: [String] = []

  func viewDidLoad() {
    libraryStore.subscribe(self) { $0.select(\.shelf.books) }
  }

  deinit {
    libraryStore.unsubscribe(self)
  }

  func newState(state books: [Book]) {
    titles = books.map(\.title)
  }
}

/// Lets the tests drive the library app.
public final class MainActorLibraryClient {
  private let controller = ShelfViewController()

  public init() {
    controller.viewDidLoad()
  }

  public var titles: [String] { controller.titles }
  public var sortsByTitle: Bool { libraryStore.state.preferences.sortsByTitle }

  public func load() { libraryStore.dispatch(loadShelf) }

  /// Writes the pending save now and reads the file back, as the next launch would.
  public func savedSortsByTitle() async -> Bool? {
    await preferencesPersistence.flush()
    let persistence = StatePersistence<LibraryState, Preferences>(
      file: preferencesFile, select: \.preferences)
    return try? persistence.restore().get()?.sortsByTitle
  }

  public func sortByTitleFromAnotherThread() {
    DispatchQueue.global().async { libraryStore.dispatch(SortByTitle(isOn: true)) }
  }
}
