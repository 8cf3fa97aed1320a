import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import Testing

@testable import StatecraftTools

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a hostile or broken file system can do to the tools' files: links, huge and sparse
/// files, pipes, killed saves, and a moment where another user could open a new file.
@Suite(.catchesHangs) struct FileSafetyTests {
  /// A sparse file of 1 GiB: it takes no disk space, and reading it whole would take seconds
  /// and a gigabyte of memory.
  private func makeSparseFile(_ url: URL) throws {
    #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: 1 << 30)
    try handle.close()
  }

  @Test func aLinkToAHugeFileIsRefusedWithoutReadingIt() throws {
    let folder = try TemporaryFolder()
    let target = folder.url.appendingPathComponent("huge")
    try makeSparseFile(target)
    let file = folder.url.appendingPathComponent("settings.json")
    try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
    guard case .failure(let error) = makePersistence(file, maximumFileSize: 1_024).restore()
    else {
      Issue.record("restored through a link")
      return
    }
    #expect(error.reason == .notARegularFile("it is a symbolic link, which is not followed"))
    // The link was moved aside; what it pointed to is untouched.
    #expect(try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int == 1 << 30)
    #expect(error.movedAsideTo != nil)
  }

  @Test func aHugeSparseFileIsRefusedByItsSizeBeforeItIsRead() throws {
    let folder = try TemporaryFolder()
    let file = folder.url.appendingPathComponent("settings.json")
    try makeSparseFile(file)
    guard case .failure(let error) = makePersistence(file, maximumFileSize: 1_024).restore()
    else {
      Issue.record("a huge file was restored")
      return
    }
    #expect(error.reason == .tooLarge(bytes: 1 << 30, limit: 1_024))
  }

  @Test func aLinkToAValidFileIsNotFollowedEither() throws {
    let folder = try TemporaryFolder()
    let real = folder.url.appendingPathComponent("real.json")
    try makePersistence(real).save(Settings(theme: "dark", fontSize: 14))
    let file = folder.url.appendingPathComponent("settings.json")
    try FileManager.default.createSymbolicLink(at: file, withDestinationURL: real)
    guard case .failure(let error) = makePersistence(file).restore() else {
      Issue.record("restored through a link")
      return
    }
    guard case .notARegularFile = error.reason else {
      Issue.record("\(error.reason)")
      return
    }
    // A save then writes a regular file at the path, not through the link.
    try makePersistence(file).save(Settings(theme: "light", fontSize: 12))
    #expect(try makePersistence(real).restore().get()?.theme == "dark")
    #expect(try makePersistence(file).restore().get()?.theme == "light")
  }

  @Test func aPipeIsRefusedWithoutWaitingForAWriter() throws {
    let folder = try TemporaryFolder()
    let file = folder.url.appendingPathComponent("settings.json")
    #expect(mkfifo(file.path, 0o600) == 0)
    guard case .failure(let error) = makePersistence(file).restore() else {
      Issue.record("read a pipe")
      return
    }
    #expect(error.reason == .notARegularFile("it is not a regular file"))
  }

  @Test func anEmptyFileIsCorruptAndKept() throws {
    let folder = try TemporaryFolder()
    let file = folder.url.appendingPathComponent("settings.json")
    #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
    guard case .failure(let error) = makePersistence(file).restore() else {
      Issue.record("restored an empty file")
      return
    }
    guard case .corrupt = error.reason else {
      Issue.record("\(error.reason)")
      return
    }
    #expect(error.movedAsideTo != nil)
  }

  @Test func restoreRemovesWhatAKilledSaveLeft() async throws {
    let folder = try TemporaryFolder()
    let path = folder.url.appendingPathComponent("settings.json").path
    try makePersistence(URL(fileURLWithPath: path)).save(Settings(theme: "dark", fontSize: 14))
    await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
      limitThisChildProcess()
      let persistence = makePersistence(URL(fileURLWithPath: path))
      persistence.writer.faultInjection.withLock { inject in
        inject = { step in if step == .wroteTemporaryFile { kill(getpid(), SIGKILL) } }
      }
      try? persistence.save(Settings(theme: "killed mid-write", fontSize: 99))
    }
    #expect(folder.contents.count == 2, "the killed save left its temporary file")
    #expect(folder.contents.contains { $0.hasPrefix(".settings.json.saving-") })
    let persistence = makePersistence(URL(fileURLWithPath: path))
    #expect(try persistence.restore().get()?.theme == "dark")
    #expect(folder.contents == ["settings.json"])
  }

  // Serialized: each case's child process watches its folder in a loop, and two at once would
  // take both cores of the CI machine from the other suites.
  @Test(.serialized, arguments: [0o022, 0o000] as [mode_t])
  func newFilesAreNeverVisibleWithAnotherMode(umask mask: mode_t) async throws {
    let folder = try TemporaryFolder()
    let path = folder.url.path
    // umask is per process: the saves run in a child process, with a thread that watches
    // every file in the folder while they are created.
    await #expect(processExitsWith: .success) { [path = path as String, mask] in
      limitThisChildProcess()
      _ = umask(mask)
      let folder = URL(fileURLWithPath: path)
      let done = Locked(0)
      let seen = Locked(0)
      let wrong = Locked(0)
      let watcher = Thread {
        while done.withLock({ $0 }) == 0 {
          for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            var status = stat()
            guard lstat(folder.appendingPathComponent(name).path, &status) == 0 else { continue }
            seen.withLock { $0 += 1 }
            if status.st_mode & 0o777 != 0o600 { wrong.withLock { $0 += 1 } }
          }
          sched_yield()
        }
        done.withLock { $0 = 2 }
      }
      watcher.start()
      let persistence = makePersistence(folder.appendingPathComponent("settings.json"))
      for size in 0..<100 {
        try persistence.save(Settings(theme: "t", fontSize: size))
        let recorder = try ActionRecorder<AppState>(
          file: folder.appendingPathComponent("session-\(size % 3).jsonl"),
          registry: ActionRegistry())
        recorder.record(SettingsAction.setFontSize(size))
        recorder.close()
      }
      done.withLock { $0 = 1 }
      while done.withLock({ $0 }) != 2 { sched_yield() }
      exit(wrong.withLock { $0 } == 0 && seen.withLock { $0 } > 0 ? 0 : 1)
    }
  }

  @Test func aRecordingReportsWriteErrorsInsteadOfDroppingThem() async throws {
    let folder = try TemporaryFolder()
    let path = folder.url.appendingPathComponent("session.jsonl").path
    // A full disk, in a child process: a file size limit makes writes past 200 bytes fail.
    await #expect(processExitsWith: .success) { [path = path as String] in
      limitThisChildProcess()
      signal(SIGXFSZ, SIG_IGN)
      var limit = rlimit(rlim_cur: 200, rlim_max: 200)
      #if canImport(Glibc)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
      #else
        _ = setrlimit(RLIMIT_FSIZE, &limit)
      #endif
      let errors = Locked(0)
      let recorder = try ActionRecorder<AppState>(
        file: URL(fileURLWithPath: path), registry: ActionRegistry()
      ) { _ in errors.withLock { $0 += 1 } }
      for size in 0..<20 { recorder.record(SettingsAction.setFontSize(size)) }
      recorder.close()
      exit(errors.withLock { $0 } > 0 ? 0 : 1)
    }
  }
}
