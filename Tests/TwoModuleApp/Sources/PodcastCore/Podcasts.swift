// The Core module as a newcomer writes it: no `nonisolated` but on the global store. Every
// declaration here is main-actor isolated by the module's default.
import Foundation
import Statecraft
import StatecraftTools

// Created by network code off the main actor, so the language asks for `nonisolated`: without
// it, `Episode(id:)` in a detached task is "call to main actor-isolated initializer 'init(id:)'
// in a synchronous nonisolated context".
nonisolated public struct Episode: Codable, Equatable, Identifiable, Sendable {
  public let id: Int
  public init(id: Int) { self.id = id }
}

public struct PlayerState: Codable, Equatable {
  /// A big state, as a library of downloads grows: a million entries by default.
  public var history: [Int]
  public var queue: [Episode] = []
  /// Each action's sequence number, in the order the reducer saw them.
  public var reduced: [Int] = []
  /// How many actions were reduced off the main thread: must stay 0.
  public var reducedOffMain = 0

  public init(historySize: Int = 1_000_000) {
    history = Array(repeating: 0, count: historySize)
  }
}

public enum PlayerAction: Action, Codable {
  case enqueue(Episode, sequence: Int)
  case remove(Episode.ID, sequence: Int)
}

public func queueReducer(action: Action, queue: [Episode]) -> [Episode] {
  var queue = queue
  switch action {
  case PlayerAction.enqueue(let episode, sequence: _): queue.append(episode)
  // A closure: in a main-actor module it checks, when it runs, that it runs on the main actor.
  case PlayerAction.remove(let id, sequence: _): queue.removeAll { $0.id == id }
  default: break
  }
  return queue
}

public func playerReducer(action: Action, state: PlayerState?) -> PlayerState {
  var state = state ?? PlayerState()
  if !isOnMainQueue { state.reducedOffMain += 1 }
  state.queue = queueReducer(action: action, queue: state.queue)
  switch action {
  case PlayerAction.enqueue(let episode, let sequence):
    state.history[episode.id % state.history.count] += 1
    state.reduced.append(sequence)
  case PlayerAction.remove(_, let sequence):
    state.reduced.append(sequence)
  default: break
  }
  return state
}

/// The actions a recording of the app holds by value, and a generated test replays.
public let playerActions: ActionRegistry = {
  var registry = ActionRegistry()
  registry.register(PlayerAction.self)
  return registry
}()

/// The app's store, created in the module that declares its reducer: here the compiler sees
/// that `playerReducer` is main-actor isolated and the store reduces on the main queue.
nonisolated public let mainStore = Store<PlayerState>(reducer: playerReducer, state: nil)

/// Whether the caller runs on the main queue (after `dispatchMain()`, a thread other than the
/// process's first may run it).
nonisolated public var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

nonisolated private let mainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

/// A thunk that works off the main actor and dispatches what it finds.
public func refreshQueue(episodes: [Episode], firstSequence: Int) -> Thunk<PlayerState> {
  Thunk { context in
    for (offset, episode) in episodes.enumerated() {
      context.dispatch(PlayerAction.enqueue(episode, sequence: firstSequence + offset))
    }
  }
}
