import Statecraft

// The app's async work, as the docs teach it: `AsyncThunk`s with policies, and a failure. The
// inspector has to show and replay their lifecycle actions.

/// Why a sync fails.
public enum SyncError: Error, Equatable, Sendable {
  case offline
}

/// Sends the notes to a server the app fakes: waits `milliseconds`, then returns how many notes
/// it sent, or fails when `isOffline`. A newer sync cancels the one running.
public func syncNotes(milliseconds: Int, isOffline: Bool = false) -> AsyncThunk<Notebook, Int> {
  AsyncThunk(syncName, id: "sync", policy: .cancelPrevious) { context in
    try await Task.sleep(nanoseconds: UInt64(max(0, milliseconds)) * 1_000_000)
    if isOffline { throw SyncError.offline }
    return context.state?.notes.count ?? 0
  }
}

/// Finds the notes that contain `query`, once typing pauses for 50 ms: only the last of a burst
/// of searches runs.
public func searchNotes(_ query: String) -> AsyncThunk<Notebook, [String]> {
  AsyncThunk(searchName, id: "search", policy: .debounce(.milliseconds(50))) { context in
    (context.state?.notes ?? []).map(\.text).filter { $0.contains(query) }
  }
}

let syncName = "notes/sync"
let searchName = "notes/search"

/// Where the last sync and search are.
public struct Activity: Codable, Equatable, Sendable {
  public var isSyncing = false
  public var synced: Int?
  public var syncError: String?
  public var found: [String] = []

  public init() {}
}

/// The activity's part of the reducer: the lifecycle actions of the two thunks.
func reduceActivity(_ activity: inout Activity, _ action: any Action) {
  if let event = syncNotes(milliseconds: 0).lifecycle(of: action) {
    activity.isSyncing = event.isPending
    switch event.phase {
    case .pending, .cancelled: break
    case .fulfilled(let count):
      activity.synced = count
      activity.syncError = nil
    case .rejected(let error): activity.syncError = "\(error)"
    }
  } else if let event = searchNotes("").lifecycle(of: action), let found = event.value {
    activity.found = found
  }
}
