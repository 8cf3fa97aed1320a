// The reducer's tests as the Testing article shows them: plain functions, in a test target with
// the app's settings (default main-actor isolation), with no annotation.
import PodcastCore
import Statecraft
import Testing

@Test func enqueueingAddsAnEpisodeAndRemovingTakesItOut() {
  var state = playerReducer(
    action: PlayerAction.enqueue(Episode(id: 7), sequence: 1), state: PlayerState(historySize: 4))
  #expect(state.queue == [Episode(id: 7)])
  state = playerReducer(action: PlayerAction.remove(7, sequence: 2), state: state)
  #expect(state.queue.isEmpty)
  #expect(state.reduced == [1, 2])
}
