import Foundation

func runLiveInspector(_ settings: Options.LiveSettings) -> Never {
  fail("--live is not available yet", status: 64)
}
