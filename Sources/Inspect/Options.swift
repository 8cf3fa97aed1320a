import Foundation
import StatecraftInspector
import StatecraftTools

/// What the command line asks for.
struct Options {
  struct LiveSettings: Sendable {
    var host = "127.0.0.1"
    var port: UInt16 = 0
    var token: String?
  }

  enum Command {
    case help
    case list(path: String)
    case state(path: String, step: Int)
    case html(path: String, output: String)
    case swiftTest(path: String, name: String, names: SessionReport.TestNames, output: String?)
    case live(LiveSettings)
  }

  /// A sentence that says what is wrong with the command line.
  struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  let command: Command

  private static let valued: Set<String> = [
    "--state", "--html", "--swift-test", "--module", "--reducer", "--registry", "--state-type",
    "--output", "--port", "--host", "--token", "--token-file",
  ]
  private static let flags: Set<String> = ["--help", "-h", "--live"]

  /// The variable that may hold the live inspector's token.
  static let tokenVariable = "STATECRAFT_INSPECTOR_TOKEN"

  /// Reads the command line; `environment` may give the live token (``tokenVariable``), and
  /// `readTokenFile` reads `--token-file`'s file (``readToken(fromFile:)``).
  init(
    parsing arguments: [String], environment: [String: String] = [:],
    readTokenFile: (String) throws(UsageError) -> String = Options.readToken(fromFile:)
  ) throws(UsageError) {
    var values: [String: String] = [:]
    var flagsSeen: Set<String> = []
    var paths: [String] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if Self.flags.contains(argument) {
        flagsSeen.insert(argument)
      } else if Self.valued.contains(argument) {
        guard index < arguments.count else { throw UsageError("\(argument) needs a value") }
        guard values[argument] == nil else { throw UsageError("\(argument) is given twice") }
        values[argument] = arguments[index]
        index += 1
      } else if argument.hasPrefix("-"), argument != "-" {
        throw UsageError("unknown option \(argument)")
      } else {
        paths.append(argument)
      }
    }
    if flagsSeen.contains("--help") || flagsSeen.contains("-h") {
      command = .help
      return
    }
    if flagsSeen.contains("--live") {
      guard paths.isEmpty else { throw UsageError("--live reads no recording") }
      var settings = LiveSettings()
      if let host = values["--host"] { settings.host = host }
      if let port = values["--port"] {
        guard let number = UInt16(port) else { throw UsageError("--port needs 0 to 65535") }
        settings.port = number
      }
      if values["--token"] != nil {
        throw UsageError(
          "--token would show the token to every user of this machine in the process list: "
            + "put it in a file only you can read and pass --token-file FILE, or set "
            + "\(Self.tokenVariable)")
      }
      let token = try values["--token-file"].map(readTokenFile) ?? environment[Self.tokenVariable]
      if let token {
        guard token.count >= 16, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { throw UsageError("the token needs 16 or more letters and digits") }
        settings.token = token
      }
      let liveOptions = ["--host", "--port", "--token", "--token-file"]
      let unused = values.keys.filter { !liveOptions.contains($0) }
      if let option = unused.sorted().first { throw UsageError("\(option) is not for --live") }
      command = .live(settings)
      return
    }
    for option in ["--host", "--port", "--token", "--token-file"] where values[option] != nil {
      throw UsageError("\(option) is only for --live")
    }
    guard let path = paths.first else { throw UsageError("name a recording, or --live") }
    guard paths.count == 1 else {
      throw UsageError("one recording at a time: \(paths.dropFirst().joined(separator: ", "))")
    }
    let modes = ["--state", "--html", "--swift-test"].filter { values[$0] != nil }
    guard modes.count <= 1 else {
      throw UsageError("\(modes.joined(separator: " and ")) cannot be used together")
    }
    let testOptions = ["--module", "--reducer", "--registry", "--state-type", "--output"]
    if values["--swift-test"] == nil,
      let option = testOptions.first(where: { values[$0] != nil })
    {
      throw UsageError("\(option) is only for --swift-test")
    }
    if let text = values["--state"] {
      guard let step = Int(text), step >= 0 else {
        throw UsageError("--state needs a step number, 0 or more")
      }
      command = .state(path: path, step: step)
    } else if let output = values["--html"] {
      command = .html(path: path, output: output)
    } else if let name = values["--swift-test"] {
      let missing = ["--module", "--reducer", "--registry"].filter { values[$0] == nil }
      guard missing.isEmpty else {
        throw UsageError(
          "--swift-test needs \(missing.joined(separator: ", ")): the names of the app's "
            + "module, reducer and action registry, which the test uses")
      }
      for option in ["--module", "--reducer", "--registry", "--state-type"] {
        guard let value = values[option] else { continue }
        let allowed = option == "--state-type" ? "_.<>, " : (option == "--module" ? "_" : "_.")
        guard let first = value.first, first.isLetter || first == "_",
          value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || allowed.contains($0)) })
        else { throw UsageError("\(option) needs a Swift name, such as MyApp or appReducer") }
      }
      let names = SessionReport.TestNames(
        imports: [values["--module"] ?? ""], reducer: values["--reducer"] ?? "",
        registry: values["--registry"] ?? "", stateType: values["--state-type"])
      command = .swiftTest(path: path, name: name, names: names, output: values["--output"])
    } else {
      command = .list(path: path)
    }
  }

  /// The token in the file at `path`, which only its owner may read or write.
  ///
  /// Another user who could read the file could drive the app. Surrounding white space (a final
  /// newline) is ignored.
  static func readToken(fromFile path: String) throws(UsageError) -> String {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue,
      attributes[.type] as? FileAttributeType == .typeRegular,
      let data = FileManager.default.contents(atPath: path)
    else { throw UsageError("--token-file \(path) is not a file that can be read") }
    guard permissions & 0o077 == 0 else {
      throw UsageError(
        "--token-file \(path) can be read or changed by other users (mode "
          + "\(String(permissions, radix: 8))): chmod 600 \(path)")
    }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
