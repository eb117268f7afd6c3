import Foundation
import StoreDeskCore

/// Reads JSON Lines a chunk at a time, so an import holds a few megabytes of the file whatever its size.
///
/// Lines end with LF or CRLF; blank lines are passed over (they keep their numbers); a line that is not
/// UTF-8, or longer than `longestLine`, comes back as a problem for that line alone.
///
/// `nextBytes()` only cuts lines (the import's one reading thread does that, with `memchr`) and leaves
/// the UTF-8 check to whoever takes the bytes (`text(line:_:)`, on the judging threads).
package struct NotificationLineReader {
    package enum Item {
        case text(line: Int, String)
        case unreadable(line: Int, String)
    }

    /// A line as bytes, trimmed, not yet checked to be UTF-8.
    package enum RawItem: Sendable {
        case bytes(line: Int, [UInt8])
        case unreadable(line: Int, String)
    }

    /// A line longer than this is refused (the rest of it skipped), so one bad line cannot take the memory.
    package static let longestLine = 16 << 20
    package static let chunkSize = 1 << 20

    private let read: (inout [UInt8]) throws -> Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var lineNumber = 0
    private var finished = false
    private var skippingLongLine = false
    private let closeFile: () -> Void

    /// Reads a regular file; throws `StoreError.dataFile` when it is missing, not a file or unreadable.
    package init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let handle = FileHandle(forReadingAtPath: path)
        else {
            throw StoreError.dataFile(path: path, message: "missing, unreadable or not a regular file")
        }
        read = { chunk in
            guard let data = try handle.read(upToCount: Self.chunkSize), !data.isEmpty else { return 0 }
            chunk.append(contentsOf: data)
            return data.count
        }
        closeFile = { try? handle.close() }
    }

    /// Reads bytes already in memory (the embedded demo file, tests).
    package init(data: Data) {
        var remaining = data[...]
        read = { chunk in
            let piece = remaining.prefix(Self.chunkSize)
            remaining = remaining.dropFirst(piece.count)
            chunk.append(contentsOf: piece)
            return piece.count
        }
        closeFile = {}
    }

    package func close() { closeFile() }

    /// The next non-blank line, or nil at the end of the file.
    package mutating func next() throws -> Item? {
        switch try nextBytes() {
        case nil: return nil
        case .unreadable(let line, let reason): return .unreadable(line: line, reason)
        case .bytes(let line, let bytes): return Self.text(line: line, bytes)
        }
    }

    /// A line's bytes as text, or why they are not.
    package static func text(line: Int, _ bytes: [UInt8]) -> Item {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .unreadable(line: line, "the line is not UTF-8 text")
        }
        return .text(line: line, text)
    }

    /// The index of the next LF at or after `start`, found with `memchr`.
    private func newline() -> Int? {
        buffer.withUnsafeBufferPointer { all -> Int? in
            guard start < all.count, let base = all.baseAddress,
                let found = memchr(base + start, Int32(UInt8(ascii: "\n")), all.count - start)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The next non-blank line's bytes, or nil at the end of the file.
    package mutating func nextBytes() throws -> RawItem? {
        while true {
            if let newline = newline() {
                let bytes = buffer[start..<newline]
                start = newline + 1
                lineNumber += 1
                if skippingLongLine {
                    skippingLongLine = false
                    continue
                }
                if let item = item(bytes) { return item }
                continue
            }
            if finished {
                guard start < buffer.count else { return nil }
                let bytes = buffer[start...]
                start = buffer.count
                lineNumber += 1
                if skippingLongLine { return nil }
                return item(bytes)
            }
            if buffer.count - start > Self.longestLine, !skippingLongLine {
                // Numbered when its end is reached; refused now, without keeping it.
                let number = lineNumber + 1
                skippingLongLine = true
                buffer.removeAll(keepingCapacity: true)
                start = 0
                return .unreadable(line: number, "the line is longer than \(Self.longestLine >> 20) MB")
            }
            if skippingLongLine {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            if try read(&buffer) == 0 { finished = true }
        }
    }

    private func item(_ bytes: ArraySlice<UInt8>) -> RawItem? {
        var slice = bytes
        while let last = slice.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            slice.removeLast()
        }
        if lineNumber == 1, slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice.removeFirst(3) }  // a UTF-8 byte order mark
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice.removeFirst() }
        if slice.isEmpty { return nil }
        return .bytes(line: lineNumber, Array(slice))
    }
}
