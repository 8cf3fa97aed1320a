/// Splits what the app sends into lines, in time linear in the bytes received.
///
/// Each byte is looked at once (``bytesExamined`` counts them). A line longer than
/// `maximumLength` is dropped as its bytes arrive, and its length reported once its end comes.
struct AppLines {
  let maximumLength: Int
  private var pending: [UInt8] = []
  /// The length of the line being skipped so far, while one is.
  private var skipping: Int?
  /// The bytes searched for line ends so far: the bytes received, none twice.
  private(set) var bytesExamined = 0

  init(maximumLength: Int) {
    self.maximumLength = maximumLength
  }

  /// Takes `chunk`; returns the lines it completed and the lengths of the overlong lines it
  /// ended.
  mutating func append(_ chunk: [UInt8]) -> (lines: [ArraySlice<UInt8>], skipped: [Int]) {
    var lines: [ArraySlice<UInt8>] = []
    var skipped: [Int] = []
    var start = chunk.startIndex
    while let end = chunk[start...].firstIndex(of: 10) {
      bytesExamined += end + 1 - start
      if let length = skipping {
        skipped.append(length + end - start)
        skipping = nil
      } else if pending.isEmpty {
        lines.append(chunk[start..<end])
      } else {
        pending += chunk[start..<end]
        lines.append(pending[...])
        pending = []
      }
      start = end + 1
    }
    let rest = chunk[start...]
    bytesExamined += rest.count
    if let length = skipping {
      skipping = length + rest.count
    } else if pending.count + rest.count > maximumLength {
      skipping = pending.count + rest.count
      pending = []
    } else {
      pending += rest
    }
    return (lines.filter { !$0.isEmpty }, skipped)
  }
}
