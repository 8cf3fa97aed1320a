import Statecraft
import TodoModel

/// Prints the list after each change.
final class TodoView: StoreSubscriber {
  private let store: Store<TodoState>
  private let write: (String) -> Void

  init(store: Store<TodoState>, write: @escaping (String) -> Void = { print($0) }) {
    self.store = store
    self.write = write
  }

  func appear() {
    store.subscribe(self)
  }

  deinit {
    store.unsubscribe(self)
  }

  func newState(state: TodoState) {
    for (number, todo) in state.visible {
      write("\(todo.isDone ? "[x]" : "[ ]") \(number). \(todo.title)")
    }
    let left = state.todos.filter { !$0.isDone }.count
    write("(\(state.filter.rawValue): \(left) of \(state.todos.count) left)")
  }
}
