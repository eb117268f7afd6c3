extension PaymentChange {
    /// The latest instant this step stamps a row at (its events, callback, grant, order, purchase, login):
    /// where committing it moves the store's clock.
    public var latestStamp: Instant? {
        var stamps = events.map(\.at)
        if let callback { stamps.append(callback.receivedAt) }
        if let grant { stamps.append(grant.grantedAt) }
        if let order { stamps.append(order.createdAt) }
        if let transaction { stamps.append(transaction.purchaseDate) }
        if let login { stamps.append(login.at) }
        return stamps.max()
    }
}
