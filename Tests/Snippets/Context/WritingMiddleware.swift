// What Writing middleware takes as given: an analytics client and a logging middleware.
enum Analytics {
  static func log(_ event: String) {}
}

let logging: Middleware<AppState> = { _, _ in { next in { action in next(action) } } }
