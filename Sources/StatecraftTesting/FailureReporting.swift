#if canImport(Testing)
  import Testing
#endif
#if canImport(XCTest)
  import XCTest
#endif

/// Where a failed expectation is reported: the caller's file and line.
struct TestLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt
}

/// Reports a failure to Swift Testing when a test of it is running, else to XCTest.
func reportFailure(_ message: String, at location: TestLocation) {
  #if canImport(Testing)
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: "\(location.fileID)", filePath: "\(location.filePath)", line: Int(location.line),
          column: Int(location.column)))
      return
    }
  #endif
  #if canImport(XCTest)
    XCTFail(message, file: location.filePath, line: location.line)
  #else
    print("Statecraft test failure at \(location.fileID):\(location.line): \(message)")
  #endif
}
