import Foundation
import Statecraft

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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

/// Loads the films from the Star Wars API (`--live`; `--api-url` points it elsewhere).
struct StarWarsAPIFilmService: FilmService {
  var endpoint = URL(string: "https://swapi.dev/api/films/")

  func films() async throws -> [Film] {
    guard let endpoint else { throw FilmServiceError.badEndpoint }
    let data: Data
    do {
      (data, _) = try await URLSession.shared.data(from: endpoint)
    } catch let error as URLError {
      throw FilmServiceError.unreachable(endpoint.host ?? endpoint.absoluteString, error.code)
    }
    do {
      return try JSONDecoder().decode(FilmList.self, from: data).results
    } catch {
      throw FilmServiceError.unexpectedAnswer(endpoint.host ?? endpoint.absoluteString)
    }
  }
}

enum FilmServiceError: Error, CustomStringConvertible {
  case missingBundledData
  case badEndpoint
  case unreachable(String, URLError.Code)
  case unexpectedAnswer(String)

  var description: String {
    switch self {
    case .missingBundledData: "the bundled films.json is missing from the example's resources"
    case .badEndpoint: "the Star Wars API address is not a valid URL"
    case .unreachable(let host, let code):
      "\(host) could not be reached (\(Self.reason(code))); run without --live for the bundled films"
    case .unexpectedAnswer(let host): "\(host) answered with something other than a list of films"
    }
  }

  private static func reason(_ code: URLError.Code) -> String {
    switch code {
    case .notConnectedToInternet: "no network connection"
    case .cannotFindHost, .dnsLookupFailed: "its name could not be resolved: no network?"
    case .cannotConnectToHost: "the connection was refused"
    case .timedOut: "it did not answer in time"
    default: "error \(code.rawValue)"
    }
  }
}
