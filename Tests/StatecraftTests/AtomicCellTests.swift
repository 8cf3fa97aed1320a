import Testing

@testable import Statecraft

@Suite struct AtomicCellTests {
  /// The cache line the word is in holds nothing but the word and its own padding, wherever
  /// the allocator puts the object: a dispatch reads these flags next to memory every commit
  /// writes (Benchmarks/README.md, n).
  @Test func theWordHasItsCacheLineToItself() {
    let line = MemoryLayout<_Pad>.size + 8
    #expect(line == 64 || line == 128)
    for _ in 0..<100 {
      let cell = AtomicCell<Int>(0)
      let object = UInt(bitPattern: Unmanaged.passUnretained(cell).toOpaque())
      let word = UInt(bitPattern: cell._atomic._address)
      let end = UInt(bitPattern: _getUnsafePointerToStoredProperties(cell)) + UInt(2 * line - 8)
      let lineStart = word & ~UInt(line - 1)
      #expect(lineStart >= object + 16, "the line reaches the object's header")
      #expect(lineStart + UInt(line) <= end, "the line reaches past the object")
    }
  }

  @Test func operationsReachTheWordBetweenThePads() {
    let cell = AtomicCell<Int>(41)
    cell.add(1, ordering: .relaxed)
    #expect(cell.load(ordering: .relaxed) == 42)
    #expect(cell.exchange(7, ordering: .acquiringAndReleasing) == 42)
    let padsUntouched = [cell._before, cell._after].allSatisfy { pad in
      withUnsafeBytes(of: pad) { $0.allSatisfy { $0 == 0 } }
    }
    #expect(padsUntouched)
  }
}
