import Statecraft
import StatecraftTools

/// A notes app's state: what the inspector has to show without this module.
public struct Notebook: Codable, Equatable, Sendable {
  public struct Note: Codable, Equatable, Sendable {
    public var text: String
    public var isPinned = false

    public init(text: String, isPinned: Bool = false) {
      self.text = text
      self.isPinned = isPinned
    }
  }

  public var notes: [Note] = []
  public var session = Session()
  public var activity = Activity()

  public init() {}
}

/// What the recorder and the live inspector redact.
public struct Session: Codable, Equatable, Sendable {
  public var user = "guest"
  public var token = "none"

  public init() {}
}

public enum NoteAction: Action, Codable, Equatable {
  case add(String)
  case pin(Int)
  case remove(Int)
  case logIn(user: String, token: String)
}

public func notesReducer(action: Action, state: Notebook?) -> Notebook {
  var state = state ?? Notebook()
  reduceActivity(&state.activity, action)
  switch action as? NoteAction {
  case .add(let text): state.notes.append(Notebook.Note(text: text))
  case .pin(let index) where state.notes.indices.contains(index):
    state.notes[index].isPinned.toggle()
  case .remove(let index) where state.notes.indices.contains(index):
    state.notes.remove(at: index)
  case .logIn(let user, let token):
    state.session.user = user
    state.session.token = token
  default: break
  }
  return state
}

/// The actions a recording can replay and the live inspector can dispatch.
public var notesActions: ActionRegistry {
  var registry = ActionRegistry()
  registry.register(NoteAction.self)
  // The thunks' lifecycle actions, by their value types, so that a recording replays them.
  registry.register(ThunkLifecycle<Int>.self)
  registry.register(ThunkLifecycle<[String]>.self)
  return registry
}

/// The paths that never leave the app: the session's token.
public let notesRedaction: @Sendable (String) -> Bool = { path in
  path == "session.token" || path == "action.logIn.token"
}
