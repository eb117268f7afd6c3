import Foundation

/// Why a notification line could not be read, in words an operator can act on.
public enum SubscriptionDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    case emptyLine
    /// Not JSON at all, or not an object.
    case invalidJSON(String)
    /// Valid JSON whose top level is an array, a string or a number: no field to name.
    case notAnObject
    /// A `signedPayload` or signed info that is not `header.payload.signature` in base64url.
    case malformedJWS(String)
    /// A field Apple always sends is absent; the associated value is its dotted path.
    case missingField(String)
    /// A field holds the wrong kind of value (a number where a string belongs).
    case wrongType(field: String, detail: String)
    /// A field's value cannot be read, such as a date that is neither milliseconds nor ISO 8601.
    case invalidValue(field: String, detail: String)

    public var description: String {
        switch self {
        case .emptyLine: "the line is empty"
        case .invalidJSON(let detail): "not a JSON object: \(detail)"
        case .notAnObject: "the line is not a JSON object"
        case .malformedJWS(let detail): "malformed JWS: \(detail)"
        case .missingField(let field): "missing field '\(field)'"
        case .wrongType(let field, let detail): "wrong type for '\(field)': \(detail)"
        case .invalidValue(let field, let detail): "invalid value for '\(field)': \(detail)"
        }
    }

    /// Turns Foundation's decoding errors into this vocabulary, keeping the field path.
    init(_ error: any Error) {
        if let own = error as? SubscriptionDecodingError {
            self = own
            return
        }
        guard let decoding = error as? DecodingError else {
            self = .invalidJSON(String(describing: error))
            return
        }
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (last.map { [$0] } ?? [])
            return keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch decoding {
        case .keyNotFound(let key, let context): self = .missingField(path(context, key))
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            self = .notAnObject
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            self = .wrongType(field: path(context), detail: context.debugDescription)
        case .dataCorrupted(let context):
            self =
                context.codingPath.isEmpty
                ? .invalidJSON(context.debugDescription)
                : .invalidValue(field: path(context), detail: context.debugDescription)
        @unknown default: self = .invalidJSON(String(describing: decoding))
        }
    }
}

/// The events read from a JSON Lines text, and the lines that could not be read, by line number.
public struct SubscriptionEventLines: Sendable {
    public struct Failure: Hashable, Sendable {
        /// 1-based, as an editor shows it.
        public var line: Int
        public var error: SubscriptionDecodingError
    }

    /// An event and the 1-based line it came from, so a later check (an unknown product, a date after
    /// the store's clock) can name the line too.
    public struct Entry: Sendable {
        public var line: Int
        public var event: SubscriptionEvent
    }

    public var entries: [Entry]
    public var failures: [Failure]

    /// The events in file order.
    public var events: [SubscriptionEvent] { entries.map(\.event) }

    init(entries: [Entry] = [], failures: [Failure] = []) {
        self.entries = entries
        self.failures = failures
    }

    /// Events made in memory (a simulation's), numbered from 1 as if they were a file's lines.
    public init(events: [SubscriptionEvent]) {
        self.init(entries: events.enumerated().map { Entry(line: $0.offset + 1, event: $0.element) })
    }
}

extension SubscriptionEvent {
    /// Reads one line: a decoded notification or a raw `{"signedPayload": "..."}`. Throws
    /// `SubscriptionDecodingError`, never traps, whatever the line holds.
    public static func decode(jsonLine: String) throws -> SubscriptionEvent {
        let text = jsonLine.trimmingWhitespaceAndNewlines()
        guard !text.isEmpty else { throw SubscriptionDecodingError.emptyLine }
        return try decode(jsonLine: Data(text.utf8))
    }

    /// Reads one line's bytes; see `decode(jsonLine:)`.
    public static func decode(jsonLine: Data) throws -> SubscriptionEvent {
        do {
            return try JSONDecoder().decode(SubscriptionEvent.self, from: jsonLine)
        } catch {
            throw SubscriptionDecodingError(error)
        }
    }

    /// Reads a whole JSON Lines text, skipping blank lines; one bad line does not stop the rest. Lines
    /// end at LF or CRLF (a file saved on Windows): the split is on the LF scalar, because Swift counts
    /// "\r\n" as one `Character` and a split on the `Character` "\n" never finds it.
    public static func decodeJSONLines(_ text: String) -> SubscriptionEventLines {
        var result = SubscriptionEventLines(entries: [], failures: [])
        for (index, line) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = String(line).trimmingWhitespaceAndNewlines()
            if trimmed.isEmpty { continue }
            do {
                result.entries.append(.init(line: index + 1, event: try decode(jsonLine: trimmed)))
            } catch {
                result.failures.append(.init(line: index + 1, error: SubscriptionDecodingError(error)))
            }
        }
        return result
    }

    /// One line of decoded-notification JSON with sorted keys: the form `decode(jsonLine:)` reads back,
    /// as `JSONEncoder` writes it (`canonicalJSONLine`, written field by field, never fails).
    public func jsonLine() throws -> String {
        canonicalJSONLine()
    }
}

extension String {
    /// The text without the white space and newlines at either end, exactly as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives it, on the string's own scalars: Foundation's
    /// on Linux goes through NSString and rebuilds the text from UTF-16, which was a quarter of the CPU of an
    /// import reading stored notifications back (kilobytes of JSON each). A line with nothing to trim is
    /// returned as it is.
    func trimmingWhitespaceAndNewlines() -> String {
        let scalars = unicodeScalars
        let space = CharacterSet.whitespacesAndNewlines
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, space.contains(scalars[start]) { start = scalars.index(after: start) }
        while start < end {
            let last = scalars.index(before: end)
            guard space.contains(scalars[last]) else { break }
            end = last
        }
        if start == scalars.startIndex, end == scalars.endIndex { return self }
        return String(scalars[start..<end])
    }
}
