import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The steps of an atomic write, named so that tests can stop a write between two of them, as
/// a crash would.
package enum AtomicWriteStep: Sendable {
  case wroteTemporaryFile
  case flushedTemporaryFile
  case renamed
}

/// Why a file could not be read.
enum FileReadFailure: Error {
  /// The path names a symbolic link, a folder, a device or a pipe.
  case notARegularFile(String)
  /// The file holds more than the limit; `bytes` is what `fstat` or the read found.
  case tooLarge(bytes: Int)
  case system(String)
}

/// Reads and writes the files of the tools so that no other user can see them, a link cannot
/// redirect them, and a crash at any moment leaves either the old file or the new one.
///
/// - Writes go to a temporary file in the same folder, created with mode 0600 by the `open`
///   call itself (`O_CREAT | O_EXCL | O_NOFOLLOW`) and written through that descriptor, then
///   flushed, renamed over the target, and the folder flushed.
/// - Reads open the file once, without following a symbolic link, check with `fstat` that it is
///   a regular file no larger than the limit, and read at most limit + 1 bytes from the same
///   descriptor, so a file that grows meanwhile is still refused.
package enum AtomicFile {
  /// The prefix of the temporary files of saves to `file`.
  static func temporaryPrefix(of file: URL) -> String {
    ".\(file.lastPathComponent).saving-"
  }

  package static func write(
    _ data: Data, to file: URL, after step: (AtomicWriteStep) throws -> Void = { _ in }
  ) throws {
    let folder = file.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let temporary = folder.appendingPathComponent(
      temporaryPrefix(of: file) + UUID().uuidString)
    let descriptor = open(
      temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw posixError("create \(temporary.lastPathComponent)") }
    var renamed = false
    defer {
      if !renamed { unlink(temporary.path) }
    }
    do {
      defer { close(descriptor) }
      try writeAll(data, to: descriptor, name: temporary.lastPathComponent)
      try step(.wroteTemporaryFile)
      guard fsync(descriptor) == 0 else { throw posixError("flush \(temporary.lastPathComponent)") }
      try step(.flushedTemporaryFile)
    }
    guard rename(temporary.path, file.path) == 0 else {
      throw posixError("rename over \(file.lastPathComponent)")
    }
    renamed = true
    try step(.renamed)
    let folderDescriptor = open(folder.path, O_RDONLY | O_CLOEXEC)
    if folderDescriptor >= 0 {
      _ = fsync(folderDescriptor)
      close(folderDescriptor)
    }
  }

  /// Writes every byte of `data` to `descriptor`, retrying short writes and interruptions.
  static func writeAll(_ data: Data, to descriptor: Int32, name: String) throws {
    try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let written = posixWrite(descriptor, base + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          throw posixError("write \(name)")
        }
        offset += written
      }
    }
  }

  /// Reads `file` whole if it is a regular file of at most `limit` bytes.
  ///
  /// - Returns: The bytes, or `nil` if there is no file.
  static func read(_ file: URL, limit: Int) throws(FileReadFailure) -> Data? {
    let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      let code = errno
      if code == ENOENT { return nil }
      if code == ELOOP {
        throw .notARegularFile("it is a symbolic link, which is not followed")
      }
      throw .system("open: \(String(cString: strerror(code)))")
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .system("fstat: \(String(cString: strerror(errno)))")
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw .notARegularFile("it is not a regular file")
    }
    let size = Int(status.st_size)
    guard size <= limit else { throw .tooLarge(bytes: size) }
    // One byte more than the limit tells a file that grew since fstat from one that fits.
    var data = Data(count: min(size, limit) + 1)
    var total = 0
    while true {
      if total == data.count {
        guard data.count <= limit else { throw .tooLarge(bytes: total) }
        data.count = min(data.count * 2, limit + 1)
      }
      let count = data.count
      let got = data.withUnsafeMutableBytes { buffer in
        buffer.baseAddress.map { posixRead(descriptor, $0 + total, count - total) } ?? 0
      }
      if got < 0 {
        if errno == EINTR { continue }
        throw .system("read: \(String(cString: strerror(errno)))")
      }
      if got == 0 { break }
      total += got
    }
    guard total <= limit else { throw .tooLarge(bytes: total) }
    data.count = total
    return data
  }

  /// Removes the temporary files that saves to `file` left behind when they were killed.
  ///
  /// Only names this type creates are touched: `.<name>.saving-<UUID>` beside the file.
  static func removeLeftovers(of file: URL) {
    let folder = file.deletingLastPathComponent()
    let prefix = temporaryPrefix(of: file)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
      return
    }
    for name in names
    where name.hasPrefix(prefix) && UUID(uuidString: String(name.dropFirst(prefix.count))) != nil {
      unlink(folder.appendingPathComponent(name).path)
    }
  }

  static func posixError(_ what: String) -> any Error {
    let code = errno
    return NSError(
      domain: NSPOSIXErrorDomain, code: Int(code),
      userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(code)))"])
  }
}

// The C functions, under names that do not clash with the methods of `Data` and file handles.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}

private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(fd, buffer, count)
}
