extension PaymentSimulation {
    /// The steps still to run, earliest first; among steps due at the same millisecond, the one
    /// scheduled first. A binary heap: at a thousand purchases a second some thousands of steps wait,
    /// and a sorted array moved them all on nearly every insert.
    struct Agenda: Sendable {
        private var heap: [Scheduled] = []

        /// The next step to run.
        var first: Scheduled? { heap.first }

        mutating func insert(_ item: Scheduled) {
            heap.append(item)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.runsBefore(heap[child], heap[parent]) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        /// Takes the next step out.
        mutating func removeFirst() -> Scheduled? {
            guard !heap.isEmpty else { return nil }
            heap.swapAt(0, heap.count - 1)
            let first = heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var earliest = parent
                if left < heap.count && Self.runsBefore(heap[left], heap[earliest]) { earliest = left }
                if right < heap.count && Self.runsBefore(heap[right], heap[earliest]) { earliest = right }
                guard earliest != parent else { break }
                heap.swapAt(parent, earliest)
                parent = earliest
            }
            return first
        }

        private static func runsBefore(_ a: Scheduled, _ b: Scheduled) -> Bool {
            a.at != b.at ? a.at < b.at : a.sequence < b.sequence
        }
    }
}
