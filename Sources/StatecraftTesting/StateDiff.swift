/// A line-by-line difference between two values, as `dump` prints them: lines only in the
/// expected value start with `−`, lines only in the actual one with `+`.
func stateDiff<Value>(expected: Value, actual: Value) -> String {
  let old = dumpLines(expected)
  let new = dumpLines(actual)
  // Longest common subsequence of lines, then walk it; dumps of states are short.
  var lengths = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
  for i in stride(from: old.count - 1, through: 0, by: -1) {
    for j in stride(from: new.count - 1, through: 0, by: -1) {
      lengths[i][j] =
        old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
    }
  }
  var lines: [String] = []
  var i = 0
  var j = 0
  while i < old.count || j < new.count {
    if i < old.count, j < new.count, old[i] == new[j] {
      lines.append("  " + old[i])
      i += 1
      j += 1
    } else if i < old.count, j == new.count || lengths[i + 1][j] >= lengths[i][j + 1] {
      lines.append("− " + old[i])
      i += 1
    } else {
      lines.append("+ " + new[j])
      j += 1
    }
  }
  return lines.joined(separator: "\n")
}

private func dumpLines<Value>(_ value: Value) -> [String] {
  var text = ""
  dump(value, to: &text)
  return text.split(separator: "\n" as Character).map(String.init)
}
