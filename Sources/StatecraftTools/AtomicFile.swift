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
enum AtomicWriteStep: Sendable {
  case wroteTemporaryFile
  case flushedTemporaryFile
  case renamed
}

/// Writes files so that a crash at any moment leaves either the old file or the new one, never a
/// mix: temporary file in the same folder, flushed to disk, renamed over the target, folder
/// flushed.
///
/// New files are readable and writable by the user only.
enum AtomicFile {
  static func write(
    _ data: Data, to file: URL, after step: (AtomicWriteStep) throws -> Void = { _ in }
  ) throws {
    let folder = file.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let temporary = folder.appendingPathComponent(
      ".\(file.lastPathComponent).saving-\(UUID().uuidString)")
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else { throw posixError("create \(temporary.lastPathComponent)") }
    var renamed = false
    defer {
      if !renamed { unlink(temporary.path) }
    }
    do {
      defer { close(descriptor) }
      try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
      try step(.wroteTemporaryFile)
      guard fsync(descriptor) == 0 else { throw posixError("flush \(temporary.lastPathComponent)") }
      try step(.flushedTemporaryFile)
    }
    guard rename(temporary.path, file.path) == 0 else {
      throw posixError("rename over \(file.lastPathComponent)")
    }
    renamed = true
    try step(.renamed)
    let folderDescriptor = open(folder.path, O_RDONLY)
    if folderDescriptor >= 0 {
      _ = fsync(folderDescriptor)
      close(folderDescriptor)
    }
  }

  private static func posixError(_ what: String) -> any Error {
    let code = errno
    return NSError(
      domain: NSPOSIXErrorDomain, code: Int(code),
      userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(code)))"])
  }
}
