import Foundation
import StoreDeskCore

/// Reads JSON Lines a chunk at a time, so an import holds a few megabytes of the file whatever its size.
///
/// Lines end with LF or CRLF; blank lines are passed over (they keep their numbers); a line that is not
/// UTF-8, or longer than `longestLine`, comes back as a problem for that line alone.
struct NotificationLineReader {
    enum Item {
        case text(line: Int, String)
        case unreadable(line: Int, String)
    }

    /// A line longer than this is refused (the rest of it skipped), so one bad line cannot take the memory.
    static let longestLine = 16 << 20
    static let chunkSize = 1 << 20

    private let read: (inout [UInt8]) throws -> Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var lineNumber = 0
    private var finished = false
    private var skippingLongLine = false
    private let closeFile: () -> Void

    /// Reads a regular file; throws `StoreError.dataFile` when it is missing, not a file or unreadable.
    init(path: String) throws {
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
    init(data: Data) {
        var remaining = data[...]
        read = { chunk in
            let piece = remaining.prefix(Self.chunkSize)
            remaining = remaining.dropFirst(piece.count)
            chunk.append(contentsOf: piece)
            return piece.count
        }
        closeFile = {}
    }

    func close() { closeFile() }

    /// The next non-blank line, or nil at the end of the file.
    mutating func next() throws -> Item? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
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

    private func item(_ bytes: ArraySlice<UInt8>) -> Item? {
        var slice = bytes
        while let last = slice.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            slice.removeLast()
        }
        if lineNumber == 1, slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice.removeFirst(3) }  // a UTF-8 byte order mark
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice.removeFirst() }
        if slice.isEmpty { return nil }
        guard let text = String(validating: slice, as: UTF8.self) else {
            return .unreadable(line: lineNumber, "the line is not UTF-8 text")
        }
        return .text(line: lineNumber, text)
    }
}
