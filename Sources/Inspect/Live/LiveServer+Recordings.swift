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
}
