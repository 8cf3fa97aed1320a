// Apple-only API that ReSwift's tests use, for the platforms without it.

#if !canImport(ObjectiveC)
  /// Runs `body`: without the Objective-C runtime there is no autorelease pool to drain.
  func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
  }
#endif
