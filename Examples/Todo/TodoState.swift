import Statecraft

struct Todo: Codable, Equatable, Sendable {
  var title: String
  var isDone = false
}

enum Filter: String, Codable, Sendable {
  case all, active, done
}

struct TodoState: Codable, Equatable, Sendable {
  var todos: [Todo] = []
  var filter = Filter.all

  /// The todos the filter shows, with their numbers in the whole list (from 1).
  var visible: [(number: Int, todo: Todo)] {
    todos.enumerated().map { ($0.offset + 1, $0.element) }.filter { _, todo in
      switch filter {
      case .all: true
      case .active: !todo.isDone
      case .done: todo.isDone
      }
    }
  }
}

enum TodoAction: Action {
  case add(String)
  case toggle(Int)
  case delete(Int)
  case setFilter(Filter)
}

func todoReducer(state: inout TodoState, action: TodoAction) {
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
