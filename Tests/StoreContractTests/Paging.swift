import StoreDeskStoreAPI

extension ListPager {
    /// The whole list read a page of `limit` at a time from its first row on, and again from its last row
    /// back: a pager that pages correctly gives the same rows both ways, none twice, none missing.
    func walked(limit: Int) throws -> (forward: [Row], backward: [Row]) {
        var forward = try first(limit: limit)
        while let last = forward.last {
            let next = try page(after: last, limit: limit)
            if next.isEmpty { break }
            forward += next
        }
        var backward = try self.last(limit: limit)
        while let first = backward.first {
            let previous = try page(before: first, limit: limit)
            if previous.isEmpty { break }
            backward = previous + backward
        }
        return (forward, backward)
    }
}
