import Dispatch
import Foundation
import StoreDeskCore

/// Judges a file's lines on every core (decoding, signature checks, catalogue checks) while the caller
/// writes what was judged, in file order.
///
/// Lines go out in batches; at most `inFlight` batches are read ahead, so memory stays a few hundred
/// lines whatever the file's size (a signed line is 11 KB: 768 of them are 8 MB), and the writer never
/// waits long for the next batch. The reading thread only cuts lines; checking that they are UTF-8 is
/// part of a batch's judging, on every core.
package final class ParallelJudgement: Sequence, IteratorProtocol {
    package typealias Judge = @Sendable (_ line: Int, _ text: String) -> NotificationImport.Judged

    private var reader: NotificationLineReader
    private let judge: Judge
    private let batchSize: Int
    private let inFlight: Int
    private var pending: [Batch] = []
    private var current: [NotificationImport.Judged] = []
    private var index = 0
    private var endOfFile = false
    /// A read error, raised to the writer where it stands.
    package private(set) var failure: (any Error)?

    package init(reader: NotificationLineReader, batchSize: Int = 128, inFlight: Int = 6, judge: @escaping Judge) {
        self.reader = reader
        self.judge = judge
        self.batchSize = batchSize
        self.inFlight = inFlight
    }

    final class Batch: @unchecked Sendable {
        // `result` is written once by the worker before `done` is signalled, and read after the wait.
        let done = DispatchSemaphore(value: 0)
        var result: [NotificationImport.Judged] = []
    }

    package func next() -> NotificationImport.Judged? {
        while index == current.count {
            fill()
            guard !pending.isEmpty else {
                reader.close()
                return nil
            }
            let batch = pending.removeFirst()
            batch.done.wait()
            current = batch.result
            index = 0
        }
        defer { index += 1 }
        return current[index]
    }

    /// Reads and hands out batches until `inFlight` are out or the file ends.
    private func fill() {
        while !endOfFile, pending.count < inFlight {
            var items: [NotificationLineReader.RawItem] = []
            items.reserveCapacity(batchSize)
            do {
                while items.count < batchSize, let item = try reader.nextBytes() { items.append(item) }
            } catch {
                failure = error
                endOfFile = true
            }
            if items.count < batchSize { endOfFile = true }
            guard !items.isEmpty else { return }
            let batch = Batch()
            let judge = self.judge
            let work = items
            DispatchQueue.global(qos: .userInitiated).async {
                batch.result = work.map { item in
                    switch item {
                    case .bytes(let line, let bytes):
                        switch NotificationLineReader.text(line: line, bytes) {
                        case .text(let line, let text): judge(line, text)
                        case .unreadable(let line, let reason): NotificationImport.Judged(line: line, verdict: .unreadable(reason))
                        }
                    case .unreadable(let line, let reason): NotificationImport.Judged(line: line, verdict: .unreadable(reason))
                    }
                }
                batch.done.signal()
            }
            pending.append(batch)
        }
    }
}
