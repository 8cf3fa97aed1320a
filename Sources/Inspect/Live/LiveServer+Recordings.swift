import StatecraftInspector
import StatecraftTools

// The live page's Export and Import: the session as a recording file, and a recording file shown
// in the page. Both take the token in a header, as commands do.

extension LiveServer {
  /// Answers `GET /export`: the steps the inspector keeps, as a recording file.
  func exportRecording(_ connection: HTTPConnection) {
    guard let recording = session.recording() else {
      connection.respond(
        status: "409 Conflict", body: Array("nothing to export: no app has connected\n".utf8))
      return
    }
    connection.respond(
      status: "200 OK", contentType: "application/x-ndjson; charset=utf-8",
      headers: "Content-Disposition: attachment; filename=\"session.jsonl\"\r\n",
      body: Array(recording.utf8))
  }

  /// Answers `POST /import`: the recording in the body as the page's data, or why not.
  ///
  /// The body's size was checked as it was read (`SessionReport.maximumImportBytes`).
  func importRecording(_ request: HTTPConnection.Request, _ connection: HTTPConnection) {
    do throws(SessionReport.ImportError) {
      let data = try SessionReport.pageData(importing: request.body)
      connection.respond(
        status: "200 OK", contentType: "application/json; charset=utf-8", body: Array(data.utf8))
    } catch {
      connection.respond(
        status: "422 Unprocessable Content", body: Array((error.description + "\n").utf8))
    }
  }

  /// Answers `POST /test?name=…&module=…&reducer=…&registry=…&stateType=…`: the regression test
  /// of the recording in the body (a file the page imported), or of the live session when the
  /// body is empty.
  func generateTest(_ request: HTTPConnection.Request, _ connection: HTTPConnection) {
    let query = request.query
    let names = SessionReport.TestNames(
      imports: [query["module"] ?? ""], reducer: query["reducer"] ?? "",
      registry: query["registry"] ?? "",
      stateType: query["stateType"].flatMap { $0.isEmpty ? nil : $0 })
    let bytes = request.body.isEmpty ? session.recording().map { Array($0.utf8) } : request.body
    guard let bytes else {
      connection.respond(
        status: "409 Conflict", body: Array("no session yet: no app has connected\n".utf8))
      return
    }
    do throws(SessionReport.ImportError) {
      let test = try SessionReport.swiftTest(
        importing: bytes, named: query["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "liveSession",
        names: names)
      connection.respond(
        status: "200 OK", contentType: "text/x-swift; charset=utf-8", body: Array(test.utf8))
    } catch {
      connection.respond(
        status: "422 Unprocessable Content", body: Array((error.description + "\n").utf8))
    }
  }
}
