import Foundation
import Statecraft

/// Where the films come from.
///
/// Thunks reach it through the store's environment, so tests and the offline default replace
/// it without globals.
protocol FilmService: Sendable {
  func films() async throws -> [Film]
}

enum FilmServiceKey: ThunkEnvironmentKey {
  static let defaultValue: any FilmService = BundledFilmService()
}

private struct FilmList: Decodable {
  let results: [Film]
}

/// Reads the films from the JSON file bundled with the example, after a simulated network
/// delay.
struct BundledFilmService: FilmService {
  var delay: Interval = .milliseconds(500)

  func films() async throws -> [Film] {
    try await Task.sleep(nanoseconds: delay.nanoseconds)
    guard let url = Bundle.module.url(forResource: "films", withExtension: "json") else {
      throw FilmServiceError.missingBundledData
    }
    return try JSONDecoder().decode(FilmList.self, from: Data(contentsOf: url)).results
  }
}

enum FilmServiceError: Error, CustomStringConvertible {
  case missingBundledData

  var description: String {
    "the bundled films.json is missing from the example's resources"
  }
}
