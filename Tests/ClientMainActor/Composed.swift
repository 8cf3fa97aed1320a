// A composed app in a target with default main-actor isolation, as a user writes it from the
// Structuring a large app and Selecting state articles: a memoized selector over two parts of the
// state, and a scope for a view of one part. Here the language asks for one more annotation than
// `nonisolated let mainStore`: a selector and a scope read the state from any thread, so every
// state type they read, down to the values they compare, is `nonisolated`. Without it the
// compiler says, for the selector, "main actor-isolated conformance of 'Post' to 'Equatable'
// cannot satisfy conformance requirement for a 'Sendable' type parameter" and "converting
// non-Sendable function value to '@Sendable (ComposedState) -> [Post]' may introduce data races",
// and for the scope "type 'KeyPath<ComposedState, Profile>' does not conform to the 'Sendable'
// protocol"; a `nonisolated` ComposedState holding a Profile that is not gets "<unknown>:0: error:
// main actor-isolated conformance of 'Profile' to 'Equatable' cannot be used in nonisolated
// context" (the articles quote these, so that a search finds them). The scope's slice needs no
// `Equatable` conformance of its own: the scope compares slices on the main actor.
import Statecraft

nonisolated struct Profile: Equatable {
  var name = ""
}

nonisolated struct Post: Equatable {
  var title: String
  var isDraft: Bool
}

nonisolated struct ComposedState: Equatable {
  var profile = Profile()
  var posts: [Post] = []
  var showsDrafts = false
}

struct Rename: Action {
  let name: String
}

func composedReducer(action: Action, state: ComposedState?) -> ComposedState {
  var state = state ?? ComposedState()
  if let action = action as? Rename { state.profile.name = action.name }
  return state
}

nonisolated let composedStore = Store<ComposedState>(reducer: composedReducer, state: nil)

let visiblePosts = createSelector(\ComposedState.posts, \ComposedState.showsDrafts) {
  posts, showsDrafts in
  posts.filter { showsDrafts || !$0.isDraft }
}

final class ProfileView: StoreSubscriber {
  let store = composedStore.scope(\.profile)
  private(set) var names: [String] = []

  func viewDidLoad() {
    store.subscribe(self) { $0.select(\.name) }
  }

  func newState(state name: String) {
    names.append(name)
  }
}

final class PostsView: StoreSubscriber {
  private(set) var counts: [Int] = []

  func viewDidLoad() {
    composedStore.subscribe(self) { $0.select(visiblePosts) }
  }

  func newState(state posts: [Post]) {
    counts.append(posts.count)
  }
}

/// Runs the composed app as a user would, for the tests: two views, a rename, a post list.
public enum MainActorComposedChecks {
  /// The names the profile view received and the post counts the posts view received.
  public static func run() -> (names: [String], counts: [Int]) {
    let profile = ProfileView()
    let posts = PostsView()
    profile.viewDidLoad()
    posts.viewDidLoad()
    composedStore.dispatch(Rename(name: "Leia"))
    return (profile.names, posts.counts)
  }
}
