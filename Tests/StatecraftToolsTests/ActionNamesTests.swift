import Foundation
import Statecraft
import StatecraftTestSupport
import StatecraftTools
import Testing

/// How the tools name actions (issue 38): whole types without their modules, a thunk's lifecycle
/// by its name and phase, and a name typed on the live page resolved in the registry.
@Suite(.catchesHangs) struct ActionNamesTests {
  enum NoteAction: Action, Codable {
    case add(String)
  }

  enum Other {
    enum NoteAction: Action, Codable {
      case add(String)
    }
  }

  @Test(
    arguments: [
      ("NotesCore.NoteAction", "NoteAction"),
      ("Statecraft.ThunkLifecycle<Swift.Int>", "ThunkLifecycle<Int>"),
      ("Statecraft.ThunkLifecycle<Swift.Array<Shelf.Book>>", "ThunkLifecycle<Array<Book>>"),
      ("Swift.Dictionary<Swift.String, Shelf.Book.ID>", "Dictionary<String, Book.ID>"),
      ("Shelf.Book.Action", "Book.Action"),
      ("Plain", "Plain"),
      ("(not recorded)", "(not recorded)"),
    ])
  func aTypeIsShownWholeWithoutItsModules(qualified: String, shown: String) {
    #expect(ActionNames.shortTypeName(qualified) == shown)
  }

  @Test func aLifecycleIsShownByItsThunksNameAndPhaseAndFilteredByThem() {
    let typeName = String(reflecting: ThunkLifecycle<Int>.self)
    let fulfilled = ActionNames.shown(
      typeName: typeName,
      payload: .object([
        "name": .string("books/load"), "requestID": .integer(3), "phase": .string("fulfilled"),
        "value": .integer(42),
      ]))
    #expect(fulfilled.line == "books/load · fulfilled 42")
    #expect(fulfilled.title == "books/load · fulfilled")
    let pending = ActionNames.shown(
      typeName: typeName,
      payload: .object([
        "name": .string("books/load"), "requestID": .integer(3), "phase": .string("pending"),
      ]))
    #expect(pending.line == "books/load · pending")
    #expect(pending.key != fulfilled.key, "the filter tells the phases apart")
    let plain = ActionNames.shown(
      typeName: "NotesCore.NoteAction", payload: .object(["add": .object(["_0": .string("milk")])]))
    #expect(plain.line == #"NoteAction add("milk")"#)
    #expect(
      ActionNames.shown(typeName: "NotesCore.Secret", payload: nil).line
        == "Secret (not replayable)")
  }

  @Test func aNameTypedOnThePageIsResolvedWholeOrAsShown() throws {
    var registry = ActionRegistry()
    registry.register(NoteAction.self)
    let whole = String(reflecting: NoteAction.self)
    #expect(try registry.resolve(typeName: whole) == whole)
    #expect(try registry.resolve(typeName: ActionNames.shortTypeName(whole)) == whole)
    #expect(throws: ActionNameError.self) { try registry.resolve(typeName: "Missing") }
  }

  @Test func anAmbiguousShownNameIsAnErrorThatListsTheWholeNames() throws {
    let names = ["NotesCore.NoteAction", "ShelfCore.NoteAction", "ShelfCore.ShelfAction"]
    #expect(try ActionRegistry.resolve(typeName: "ShelfAction", among: names) == names[2])
    #expect(try ActionRegistry.resolve(typeName: "ShelfCore.NoteAction", among: names) == names[1])
    #expect(throws: ActionNameError.ambiguous("NoteAction", candidates: Array(names[0...1]))) {
      try ActionRegistry.resolve(typeName: "NoteAction", among: names)
    }
    #expect(
      ActionNameError.ambiguous("NoteAction", candidates: Array(names[0...1])).description
        == "NoteAction names 2 action types in the app's ActionRegistry: NotesCore.NoteAction, "
        + "ShelfCore.NoteAction; type the whole name of one")
    #expect(
      ActionNameError.unknown("Missing", known: names).description
        == "Missing is not in the app's ActionRegistry; it holds NotesCore.NoteAction, "
        + "ShelfCore.NoteAction, ShelfAction")
  }
}
