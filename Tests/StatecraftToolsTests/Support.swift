import Foundation
import Statecraft
import StatecraftTools

struct Settings: Codable, Equatable, Sendable {
  var theme = "light"
  var fontSize = 12
}

struct AppState: Equatable, Sendable {
  var settings = Settings()
  var unsaved = 0
}

enum SettingsAction: Action {
  case setTheme(String)
  case setFontSize(Int)
  case touchUnsaved
}

let appReducer: InPlaceReducer<AppState> = { state, action in
  switch action as? SettingsAction {
  case .setTheme(let theme): state.settings.theme = theme
  case .setFontSize(let size): state.settings.fontSize = size
  case .touchUnsaved: state.unsaved += 1
  case nil: break
  }
}

/// Version 1 called the font size `size`.
let settingsMigrations: [Int: PersistenceMigration] = [
  1: { json in
    var object = json.objectValue ?? [:]
    object["fontSize"] = object["size"]
    object["size"] = nil
    return .object(object)
  }
]

/// A fresh folder for one test, removed when the test's scope ends.
final class TemporaryFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "statecraft-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  /// Copies a committed fixture into the folder, as `settings.json`.
  func fixture(_ name: String) throws -> URL {
    guard
      let source = Bundle.module.url(
        forResource: name, withExtension: nil, subdirectory: "Fixtures")
    else { throw CocoaError(.fileNoSuchFile) }
    let target = url.appendingPathComponent("settings.json")
    try FileManager.default.copyItem(at: source, to: target)
    return target
  }

  var contents: [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.sorted() ?? []
  }
}

func makePersistence(
  _ file: URL, maximumFileSize: Int = 10 * 1_024 * 1_024, debounce: Interval = .milliseconds(20),
  clock: any ThunkClock = SystemThunkClock()
) -> StatePersistence<AppState, Settings> {
  StatePersistence(
    file: file, schemaVersion: 2, migrations: settingsMigrations, debounce: debounce,
    clock: clock, maximumFileSize: maximumFileSize, select: { $0.settings })
}
