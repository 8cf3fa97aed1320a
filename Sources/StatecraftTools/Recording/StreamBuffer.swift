import Foundation
import Statecraft

// What a `StateStream` keeps for its writer. Not nested in the generic stream, and holding states
// as `any Sendable`: the dispatching thread's appends then run code compiled for these types, where
// generic entries went through the state type's metadata and value witnesses on every append.
struct StreamEntry {
  var index: Int
  var time: UInt64
  var action: any Action
  var state: (any Sendable)?
  var before: (any Sendable)?
  /// The state was not taken (a stream with a state interval), rather than dropped.
  var isStateOmitted: Bool
}

struct StreamGap {
  var from: Int
  var count: Int
  var state: (any Sendable)?
}

enum StreamItem {
  case action(StreamEntry)
  /// A line the owner writes in order with the actions (a live inspector's status).
  case line(JSONValue)
  /// Work on the writer's encoder, in order with the actions (a live inspector's rewrite).
  case job(@Sendable (inout LineEncoder) -> [JSONValue])
}

struct StreamBuffer {
  var items: [StreamItem] = []
  var actionCount = 0
  var stateCount = 0
  /// Replies to a reader's requests waiting for the writer (``StateStream/enqueue(reply:)``).
  var replyCount = 0
  /// Those of them that hold a state.
  var stateReplyCount = 0
  /// Whether a dropped reply would have started the encoder over: the writer does it instead.
  var startsOver = false
  /// Replies dropped since the last one written, because ``StateStream/maximumPendingReplies``
  /// were waiting.
  var droppedReplies = 0
  /// The position in `items` of the newest entry holding a state, which gives it up first.
  var newestState: Int?
  var gap: StreamGap?
  var nextIndex = 0
  /// Counts what was handed over: actions, lines and jobs.
  var sequence: UInt64 = 0
  var isWriterIdle = true
  var isClosed = false
  var flushWaiters: [DispatchSemaphore] = []
  var statistics = RecordingStatistics()
}
