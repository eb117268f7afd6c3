extension PaymentSimulation {
    /// How far simulated time may run past the oldest callback still waiting for its reply: the
    /// earliest thing a reply schedules (finishing the transaction) is 100 ms after it, so holding the
    /// clock this close keeps every reply's consequences at their simulated times, whatever the network's
    /// real latency, while many callbacks are in flight at once.
    public static let replyWindow = Instant.Duration(millis: 100)

    /// Brings the summary's end-of-run counts (states, dropped orders, awaiting) up to date after
    /// `advance(until:_:)` and `answer(_:with:url:)`.
    public mutating func updateSummary() { finishSummary() }

    /// Which apps' callbacks go to real game servers from now on (the console's `:callback URL` and its
    /// clearing): a callback already sent still has its reply judged; the next ones follow the new routes.
    public mutating func route(remoteApps: Set<String>) {
        configuration.remoteApps = remoteApps
    }

    /// Takes the callbacks waiting to be POSTed (oldest first); each is now awaiting its reply.
    public mutating func takeOutbox() -> [OutboundCallback] {
        let taken = outbox
        outbox.removeAll(keepingCapacity: true)
        return taken
    }

    /// How many callbacks have been POSTed (or taken to be) and not answered yet.
    public var unansweredCount: Int { awaitingReply.count + outbox.count }

    /// The latest instant the clock may reach while callbacks are in flight (nil when none is): the
    /// oldest one's sending time plus `replyWindow`.
    public var holdUntil: Instant? {
        let oldest = min(awaitingReply.values.min() ?? .max, outbox.first?.sentAt.millis ?? .max)
        guard oldest != .max else { return nil }
        return Instant(millis: oldest).adding(Self.replyWindow)
    }

    mutating func send(
        orderId: String, transactionId: String, appId: String, attempt: Int, received: Int, body: String, isRepeat: Bool,
        tampering: String
    ) {
        outboundSerial += 1
        let callback = OutboundCallback(
            id: outboundSerial, orderId: orderId, transactionId: transactionId, appId: appId, attempt: attempt,
            received: received, body: body, isRepeat: isRepeat, tampering: tampering, sentAt: now)
        outbox.append(callback)
        awaitingReply[callback.id] = now.millis
    }

    /// A real game server's reply to a callback from `takeOutbox`, at the simulation's current time.
    ///
    /// `success` (with a 2xx status) delivers the order: it is granted what the platform's rules give for
    /// its genuine callback (the same `GrantRule` the in-process game server follows, so a conforming game
    /// server's ledger and the store agree order by order), the transaction is finished, and a duplicate
    /// fault sends it once more. Any other reply, or none, is a failed delivery retried with backoff. A
    /// repeat must be answered `success` too; it is never retried.
    public mutating func answer(_ sent: OutboundCallback, with reply: CallbackReply, url: String) -> [PaymentChange] {
        guard awaitingReply.removeValue(forKey: sent.id) != nil else { return [] }
        summary.http.record(reply)
        let changes = judge(sent, reply: reply, url: url)
        summary.events += changes.reduce(0) { $0 + $1.events.count }
        return changes
    }

    private mutating func judge(_ sent: OutboundCallback, reply: CallbackReply, url: String) -> [PaymentChange] {
        guard let order = orders[sent.orderId], let transaction = transactions[sent.transactionId],
            let app = apps[sent.appId]
        else { return [] }
        let id = sent.transactionId
        let sentCheck = CallbackSignature.verify(body: sent.body, appKey: app.appKey)
        var record = CallbackAttempt(
            orderId: sent.orderId, attempt: sent.attempt, body: sent.body, signExpected: sentCheck.expectedSign,
            signReceived: sentCheck.receivedSign ?? "", verdict: "", reason: "",
            reply: reply.failure?.sentence ?? reply.shownBody, receivedAt: now, url: url, httpStatus: reply.status,
            latencyMicros: reply.latencyMicros)
        let what = "callback attempt \(sent.attempt) to \(url)\(sent.tampering)"

        if sent.isRepeat {
            if transaction.finished { forget(id) }
            if reply.isSuccess {
                summary.callbacksDuplicate += 1
                record.verdict = CallbackAttempt.duplicate
                record.reason = "a repeat of a delivered order, answered success: \(reply.summary)"
                return [PaymentChange(callback: record, events: [event(id, .callbackDuplicate, "duplicate \(what): \(reply.summary)")])]
            }
            record.verdict = reply.wasAnswered ? CallbackAttempt.refused : CallbackAttempt.unanswered
            record.reason = "a repeat must be answered success too (the order was already delivered); \(reply.problem ?? reply.summary)"
            return [PaymentChange(callback: record, events: [event(id, .callbackRejected, "duplicate \(what): " + record.reason)])]
        }

        guard reply.isSuccess else {
            let retryAt = now.millis + Self.backoff(attempt: sent.attempt)
            let retryText = "retry \(sent.attempt + 1) in \((retryAt - now.millis) / 1000)s"
            let problem = reply.problem ?? reply.summary
            let kind: PaymentEvent.Kind
            if reply.wasAnswered {
                summary.callbacksRejected += 1
                record.verdict = CallbackAttempt.refused
                kind = .callbackRejected
            } else {
                summary.callbacksUnanswered += 1
                record.verdict = CallbackAttempt.unanswered
                kind = .callbackFailed
            }
            let expected = sentCheck.isValid ? "" : "; the game server was right to refuse it (\(sentCheck.verdict.code))"
            record.reason = problem + expected
            schedule(
                .deliver(orderId: sent.orderId, attempt: sent.attempt + 1, received: sent.received + (reply.wasAnswered ? 1 : 0)),
                at: retryAt)
            return [PaymentChange(callback: record, events: [event(id, kind, "\(what) failed: \(problem)\(expected); \(retryText)")])]
        }

        // Delivered. What the game server grants is what the platform's rules give for the genuine callback.
        let genuine = ServerCallback(transaction: transaction, orderId: order.id, app: app, timestamp: sent.sentAt)
        let decision = GrantRule.decide(body: genuine.body, app: app, products: sellable, alreadyGranted: granted, at: now)
        guard let grant = decision.grant else {
            // Only an order whose own callback the rules refuse gets here (a product the app stopped selling).
            summary.callbacksRejected += 1
            record.verdict = CallbackAttempt.refused
            record.reason = "answered success, but the platform's rules grant nothing for this order: \(decision.reason)"
            return [PaymentChange(callback: record, events: [event(id, .callbackRejected, "\(what): " + record.reason)])]
        }
        summary.callbacksAccepted += 1
        summary.grants += 1
        granted.insert(order.id)
        var grantedOrder = order
        grantedOrder.status = .granted
        orders[order.id] = grantedOrder
        record.verdict = CallbackAttempt.accepted
        let lax = sentCheck.isValid
            ? ""
            : "; but what it was sent does not verify (\(sentCheck.verdict.code)): this game server does not check the sign"
        record.reason = "answered success: \(reply.summary)\(lax)"
        schedule(.finish(id), at: now.millis + 100)
        if plans[id]?.duplicate == true { schedule(.redeliver(orderId: order.id, attempt: sent.attempt + 1), at: now.millis + 500) }
        let granting = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
        return [
            PaymentChange(
                order: grantedOrder, callback: record, grant: grant,
                events: [
                    event(id, .callbackAccepted, "\(what) accepted: \(reply.summary)\(lax)"),
                    event(id, .granted, "granted \(granting) to \(grant.userId) on \(grant.sid)"),
                ])
        ]
    }
}
