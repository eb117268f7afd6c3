import StoreDeskCore
import Testing

/// The one driver every payment run follows (simulate, the HTTP run, the Queue screen), driven here on a
/// simulated wall clock: nothing sleeps, and each rule is checked at every action.
@Suite struct PaymentRunDriverTests {
    static let wall0 = Instant(millis: 5_000_000)

    static func simulation(remote: Bool = false, seconds: Int = 60, rate: Double = 5, faults: [PaymentFault] = []) -> PaymentSimulation {
        let app = PaymentSimulationTests.app
        return PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: seconds, rate: rate, seed: 11, faults: faults, start: PaymentSimulationTests.start,
                accounts: PaymentSimulationTests.accounts((1...40).map { "u\($0)" }), apps: [app],
                products: PaymentSimulationTests.products, malformedShare: 0, remoteApps: remote ? [app.id] : []))
    }

    /// What a carrier saw: every commit, every post, every heartbeat, in order, and the simulated wall
    /// clock's reading when the run was done.
    struct Carried {
        var commits: [[PaymentChange]] = []
        var posts: [OutboundCallback] = []
        var heartbeats: [Instant] = []
        var finishedAt = wall0
        var mostInFlight = 0
        var driver: PaymentRunDriver
    }

    /// Carries `driver` out as `PaymentRunLoop` does, with a game server that answers every callback
    /// `reply` after `latency` of wall time, and checks the ordering rules at every action.
    static func carry(
        _ driver: PaymentRunDriver, reply: CallbackReply = CallbackReply(status: 200, body: CallbackReply.successBody, latencyMicros: 900),
        latency: Instant.Duration = .init(millis: 3), sourceLocation: SourceLocation = #_sourceLocation
    ) -> Carried {
        var carried = Carried(driver: driver)
        var wall = wall0
        var committedOrders: Set<String> = []
        var outstanding: [(due: Instant, callback: OutboundCallback)] = []
        for _ in 0..<1_000_000 {
            let (actions, wait) = carried.driver.next(wall: wall)
            for action in actions {
                switch action {
                case .commit(let changes):
                    #expect(changes.count <= carried.driver.batch, sourceLocation: sourceLocation)
                    carried.commits.append(changes)
                    for change in changes { if let order = change.order { committedOrders.insert(order.id) } }
                    carried.driver.committed()
                case .post(let callback):
                    #expect(committedOrders.contains(callback.orderId), "\(callback.orderId) left before its order was committed", sourceLocation: sourceLocation)
                    carried.posts.append(callback)
                    outstanding.append((wall.adding(latency), callback))
                    carried.mostInFlight = max(carried.mostInFlight, carried.driver.inFlight)
                case .heartbeat:
                    carried.heartbeats.append(wall)
                }
            }
            switch wait {
            case .again: continue
            case .done:
                carried.finishedAt = wall
                return carried
            case .reply:
                #expect(!outstanding.isEmpty, "waits for a reply with none outstanding", sourceLocation: sourceLocation)
                guard !outstanding.isEmpty else { return carried }
                let (due, callback) = outstanding.removeFirst()
                wall = max(wall, due)
                carried.driver.replied(callback, with: reply, url: "http://127.0.0.1/callback")
            case .wall(let instant):
                #expect(instant > wall, "waits for a time already come", sourceLocation: sourceLocation)
                wall = max(wall, instant)
            }
        }
        Issue.record("the run never ended", sourceLocation: sourceLocation)
        return carried
    }

    @Test func asFastAsPossibleCommitsTheSameStepsTheEngineEmitsInBatches() {
        var alone = Self.simulation(faults: [.networkDrop(probability: 0.3), .clientCrash(probability: 0.1)])
        let expected = alone.runCollecting()
        let carried = Self.carry(
            PaymentRunDriver(Self.simulation(faults: [.networkDrop(probability: 0.3), .clientCrash(probability: 0.1)]), speed: 0, batch: 50))
        #expect(carried.commits.flatMap { $0 } == expected)
        #expect(carried.commits.count >= expected.count / 50 && carried.commits.dropLast().allSatisfy { $0.count == 50 })
        #expect(carried.driver.simulation.summary == alone.summary)
        #expect(carried.posts.isEmpty && carried.heartbeats.isEmpty)
        #expect(carried.finishedAt == Self.wall0, "no time passes when nothing waits")

        // `runInProcess` (simulate's two-core path) emits the very same steps.
        var driver = PaymentRunDriver(Self.simulation(faults: [.networkDrop(probability: 0.3), .clientCrash(probability: 0.1)]), speed: 0, batch: 50)
        var emitted: [PaymentChange] = []
        driver.runInProcess { emitted.append($0) }
        #expect(emitted == expected)
    }

    @Test func aPacedRunTakesItsWindowOverSpeedOfWallTimeAndNeverRunsAhead() {
        let speed = 10.0
        var driver = PaymentRunDriver(Self.simulation(seconds: 60), speed: speed)
        var wall = Self.wall0
        var steps = 0
        while true {
            let (actions, wait) = driver.next(wall: wall)
            for case .commit in actions { driver.committed() }
            let allowed = PaymentSimulationTests.start.adding(Instant.Duration(millis: Int64(Double(wall.millis - Self.wall0.millis) * speed)))
            #expect(driver.simulation.now <= allowed, "simulated \(driver.simulation.now.millis) ahead of the pace \(allowed.millis)")
            if wait == .done { break }
            if case .wall(let until) = wait { wall = until }
            steps += 1
            guard steps < 100_000 else {
                Issue.record("never done")
                return
            }
        }
        // 60 simulated seconds at 10×: 6 s of wall time, give or take one pace step.
        let took = wall.millis - Self.wall0.millis
        #expect(took >= 6_000 && took <= 6_000 + PaymentRunDriver.paceStep.millis, "\(took) ms")
        #expect(driver.simulation.now >= driver.end)
    }

    @Test func aCallbackLeavesOnlyAfterItsOrderIsCommittedAndAtMostConcurrencyAtOnce() {
        let carried = Self.carry(PaymentRunDriver(Self.simulation(remote: true, seconds: 30, rate: 20), speed: 0, concurrency: 4, batch: 64))
        let summary = carried.driver.simulation.summary
        #expect(carried.posts.count > 100)
        #expect(carried.mostInFlight == 4)
        #expect(summary.grants > 0 && summary.callbacksUnanswered == 0)
        #expect(carried.driver.inFlight == 0 && carried.driver.ready.isEmpty)
        // Every reply was handed back and judged: each accepted callback granted once.
        #expect(summary.http.attempts == carried.posts.count && summary.grants == summary.callbacksAccepted)
        // The same purchase attempts as with the in-process game server: the network changes when, not what
        // arrives (an order open longer while its reply is on its way refuses a few more repeat purchases).
        var local = Self.simulation(seconds: 30, rate: 20)
        _ = local.runCollecting()
        #expect(summary.attempts == local.summary.attempts)
    }

    @Test func aGameServerThatNeverSaysSuccessIsRetriedAndNothingIsGranted() {
        let carried = Self.carry(
            PaymentRunDriver(Self.simulation(remote: true, seconds: 5), speed: 0, concurrency: 8),
            reply: .failed(.connectionRefused, latencyMicros: 100))
        #expect(carried.driver.simulation.summary.grants == 0)
        #expect(carried.posts.contains { $0.attempt > 1 }, "retried with backoff")
    }

    @Test func anIdleRunHeartbeatsAndAPausedOneStepsToItsNextEvent() {
        var driver = PaymentRunDriver(Self.simulation(rate: 0.5), speed: 1, heartbeatInterval: .seconds(10))
        driver.paused = true
        var beats: [Instant] = []
        var wall = Self.wall0
        for _ in 0..<40 {
            let (actions, _) = driver.next(wall: wall)
            for action in actions {
                if case .heartbeat = action { beats.append(wall) }
                if case .commit = action { Issue.record("a paused run committed") }
            }
            wall = wall.adding(.seconds(1))
        }
        #expect(driver.simulation.now == PaymentSimulationTests.start, "paused: the clock stood still")
        #expect(beats.map { $0.millis - Self.wall0.millis } == [10_000, 20_000, 30_000])

        // A single step runs to the next event, and only to it.
        guard let due = driver.simulation.nextDue else {
            Issue.record("nothing due in an hour of purchases")
            return
        }
        let stepped = driver.step()
        #expect(stepped)
        let (actions, _) = driver.next(wall: wall)
        #expect(driver.simulation.now == due)
        #expect(actions.contains { if case .commit = $0 { true } else { false } })

        // Resumed, the time it stood paused is not the run's: only what passes from now on is.
        driver.committed()
        driver.holdPace(until: wall.adding(.seconds(1)))
        driver.paused = false
        _ = driver.next(wall: wall.adding(.seconds(3)))
        #expect(driver.simulation.now.millis <= due.millis + 2_000)
    }

    @Test func aCommitUnderWayHoldsTheNextOneAndTheCallbacksWaitingForIt() {
        var driver = PaymentRunDriver(Self.simulation(remote: true, seconds: 10, rate: 20), speed: 0, concurrency: 16, batch: 8)
        var (actions, _) = driver.next(wall: Self.wall0)
        guard case .commit = actions.first else {
            Issue.record("the first action is a commit: \(actions)")
            return
        }
        #expect(!actions.contains { if case .post = $0 { true } else { false } }, "nothing leaves before its commit")
        // The commit has not come back: asked again, the driver hands out no second commit and no post.
        (actions, _) = driver.next(wall: Self.wall0.adding(.seconds(1)))
        #expect(actions.allSatisfy { if case .heartbeat = $0 { true } else { false } })
        driver.committed()
        (actions, _) = driver.next(wall: Self.wall0.adding(.seconds(2)))
        #expect(!actions.isEmpty)
    }
}
