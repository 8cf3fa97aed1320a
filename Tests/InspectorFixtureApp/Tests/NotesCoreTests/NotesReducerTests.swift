import NotesCore
import Statecraft
import Testing

@Test func addingANoteAppendsIt() {
  let state = notesReducer(action: NoteAction.add("milk"), state: nil)
  #expect(state.notes == [Notebook.Note(text: "milk")])
}
