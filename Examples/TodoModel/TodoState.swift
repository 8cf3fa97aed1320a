import Statecraft
import StatecraftTools

// The todo app's model, shared by `swift run todo` and `swift run inspect`.

public struct Todo: Codable, Equatable, Sendable {
  public var title: String
  public var isDone = false

  public init(title: String, isDone: Bool = false) {
    self.title = title
    self.isDone = isDone
  }
}

public enum Filter: String, Codable, Sendable {
  case all, active, done
}

public struct TodoState: Codable, Equatable, Sendable {
  public var todos: [Todo] = []
  public var filter = Filter.all

  public init(todos: [Todo] = [], filter: Filter = .all) {
    self.todos = todos
    self.filter = filter
  }

  /// The todos the filter shows, with their numbers in the whole list (from 1).
  public var visible: [(number: Int, todo: Todo)] {
    todos.enumerated().map { ($0.offset + 1, $0.element) }.filter { _, todo in
      switch filter {
      case .all: true
      case .active: !todo.isDone
      case .done: todo.isDone
      }
    }
  }
}

public enum TodoAction: Action, Codable, Equatable {
  case add(String)
  case toggle(Int)
  case delete(Int)
  case setFilter(Filter)
}

public func todoReducer(state: inout TodoState, action: TodoAction) {
  switch action {
  case .add(let title):
    state.todos.append(Todo(title: title))
  case .toggle(let number) where state.todos.indices.contains(number - 1):
    state.todos[number - 1].isDone.toggle()
  case .delete(let number) where state.todos.indices.contains(number - 1):
    state.todos.remove(at: number - 1)
  case .setFilter(let filter):
    state.filter = filter
  default:
    break
  }
}

/// The todo reducer in ReSwift's shape, for the store and for replaying recordings.
public func todoAppReducer(action: Action, state: TodoState?) -> TodoState {
  var state = state ?? TodoState()
  if let action = action as? TodoAction { todoReducer(state: &state, action: action) }
  return state
}

/// The todo actions a recording can replay.
public var todoActions: ActionRegistry {
  var registry = ActionRegistry()
  registry.register(TodoAction.self)
  return registry
}
