import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Glibc's module map leaves out the pseudo-terminal functions (they need _XOPEN_SOURCE).
@_silgen_name("posix_openpt") private func openPseudoTerminal(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("ptsname") private func pseudoTerminalName(_ descriptor: Int32)
  -> UnsafeMutablePointer<CChar>?

/// Runs a program on a pseudo-terminal, as a person at a terminal would: it waits for the
/// prompt before typing each line, and returns everything the terminal showed but the
/// development checks' warnings.
///
/// A debug build warns on the terminal when a reduction takes longer than a frame, which a busy
/// machine causes; the app's own output is what the tests compare.
///
/// The program runs, and is read, from a thread of this function's own: the test's task awaits
/// it without holding a thread of the cooperative pool. `timeout` is a failure bound only.
func runInPseudoTerminal(
  _ executable: URL, arguments: [String], typing lines: [String], prompt: String = "> ",
  timeout: Interval = .patience
) async throws -> String {
  let screen = await onItsOwnThread {
    Result {
      try runInPseudoTerminalBlocking(
        executable, arguments: arguments, typing: lines, prompt: prompt, timeout: timeout)
    }
  }
  guard let screen else { throw ExampleDidNotEnd(name: executable.lastPathComponent) }
  return try screen.get()
}

private func runInPseudoTerminalBlocking(
  _ executable: URL, arguments: [String], typing lines: [String], prompt: String,
  timeout: Interval
) throws -> String {
  let master = openPseudoTerminal(O_RDWR | O_NOCTTY)
  guard master >= 0, grantPseudoTerminal(master) == 0, unlockPseudoTerminal(master) == 0,
    let name = pseudoTerminalName(master)
  else { throw CocoaError(.fileReadUnknown) }
  let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
  guard slave >= 0 else { throw CocoaError(.fileReadUnknown) }
  let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
  let process = Process()
  process.executableURL = executable
  process.environment = exampleEnvironment
  process.arguments = arguments
  process.standardInput = terminal
  process.standardOutput = terminal
  process.standardError = terminal
  try process.run()
  // Only the child keeps the terminal open now, so reading ends when it exits.
  try terminal.close()
  defer { close(master) }

  var screen = ""
  let deadline = MonotonicClock.now + timeout.nanoseconds
  func readUntil(_ done: (String) -> Bool) {
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while !done(screen), MonotonicClock.now < deadline {
      var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 100) > 0 else { continue }
      let count = read(master, &buffer, buffer.count)
      guard count > 0 else { return }  // the program closed the terminal
      screen += String(decoding: buffer[0..<count], as: UTF8.self)
    }
  }
  for line in lines {
    readUntil { $0.hasSuffix(prompt) }
    let typedAt = screen.utf8.count
    _ = (line + "\n").withCString { write(master, $0, strlen($0)) }
    // The terminal echoes what was typed, after where it was typed: text earlier on the screen
    // that contains the line (the command list names "undo") must not count, or the next line
    // is typed before the program has answered this one.
    readUntil { String(decoding: $0.utf8.dropFirst(typedAt), as: UTF8.self).contains(line) }
  }
  readUntil { _ in false }
  process.waitUntilExit()
  var shown = screen.replacingOccurrences(of: "\r\n", with: "\n")
  // A warning is one line on standard error, wherever the app's output stood (after a prompt).
  while let warning = shown.range(of: "Statecraft warning: ") {
    let end = shown[warning.upperBound...].firstIndex(of: "\n").map(shown.index(after:))
    shown.removeSubrange(warning.lowerBound..<(end ?? shown.endIndex))
  }
  return shown
}
