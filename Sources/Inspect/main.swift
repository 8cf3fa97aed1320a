import Foundation
import StatecraftTools

// The inspector: reads any app's recording without the app's code, and shows a running app
// live. `inspect --help` says how.

let usage = """
  usage: inspect RECORDING.jsonl [--state N | --html OUT.html | --swift-test NAME ...]
         inspect --live [--port N] [--host ADDRESS] [--token-file FILE]

    (no option)          lists the recorded actions
    --state N            prints the state after step N as JSON (0: before the first action)
    --html OUT.html      writes a page to explore the session in a browser
    --swift-test NAME --module M --reducer R --registry A [--state-type T] [--output FILE]
                         writes a Swift Testing test for the app's test target: it imports
                         module M, replays the session through the reducer R with the action
                         registry A, and checks what each action changed in the state
                         (--state-type names the state's type when R is overloaded); to
                         FILE, or printed
    --live               serves a page that shows a running app as it dispatches, and can move
                         it back in time; it prints the address and the token an app connects
                         with (see LiveInspection)
    --port N             with --live: the port, 0 (the default) for any free one
    --host ADDRESS       with --live: the address to listen on; 127.0.0.1 by default. Anyone
                         who can reach it and holds the token can read and change the app
    --token-file FILE    with --live: the token clients must present, instead of a random one,
                         read from FILE, which only its owner may read (chmod 600); or set
                         STATECRAFT_INSPECTOR_TOKEN. Not on the command line, where every
                         user of the machine can read it
    --help               shows this

  Exit status: 0 done, 64 wrong options, 65 the recording cannot give what was asked (no
  states, states lost), 66 the recording cannot be read, 73 the output cannot be written.
  Pages and tests are written readable by their owner only, as recordings are.
  """

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data(("inspect: " + message + "\n").utf8))
  exit(status)
}

let options: Options
do {
  options = try Options(
    parsing: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment)
} catch {
  fail("\(error)\n\n\(usage)", status: 64)
}

switch options.command {
case .help:
  print(usage)
case .live(let settings):
  runLiveInspector(settings)
case .list(let path):
  listActions(of: try readRecording(path))
case .state(let path, let step):
  printState(of: try readRecording(path), afterStep: step)
case .html(let path, let output):
  writePage(of: try readRecording(path), named: path, to: output)
case .swiftTest(let path, let name, let names, let output):
  writeTest(of: try readRecording(path), named: name, names: names, to: output)
}
