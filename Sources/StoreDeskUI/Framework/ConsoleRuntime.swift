import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// A terminal the runtime can draw on and read from. The curses layer implements it; tests and
/// `storedesk snapshot` run the runtime without one.
public protocol ConsoleDevice: AnyObject {
    var size: Size { get }
    /// Shows a frame; implementations write only the cells that changed.
    func present(_ canvas: Canvas, theme: Theme)
    /// The next key or resize, waiting at most this long.
    func nextEvent(timeoutMilliseconds: Int) -> DeviceEvent?
    /// Puts text on the clipboard of the terminal the console runs in (OSC 52, through tmux too).
    func copy(_ text: String)
}

extension ConsoleDevice {
    public func copy(_ text: String) {}
}

public enum DeviceEvent: Sendable, Equatable {
    case key(Key)
    case resize(Size)
    case mouse(MouseEvent)
}

/// Runs the Elm loop: messages into the reducer, effects performed against the store, results fed
/// back as messages, frames drawn at a capped rate.
public final class ConsoleRuntime {
    public private(set) var state: AppState
    public private(set) var theme: Theme
    let store: any ConsoleStore
    let catalog: ThemeCatalog
    /// Set once something changed on screen since the last frame.
    var dirty = true
    /// Effects put off until input is handled (`Effect.later`).
    var deferred: [Effect] = []
    /// Texts to put on the terminal's clipboard (`Effect.copy`), handed to the device after the frame.
    public private(set) var clipboard: [String] = []
    /// Posts callbacks for `Effect.post` (nil: this console cannot reach game servers over HTTP).
    let callbacks: (any CallbackSending)?
    /// Replies of posts in flight, as they arrive from the network's threads.
    let replies = ReplyInbox()
    /// Background work started and not known to have ended (`Effect.background`): stopped and waited
    /// for when the console closes (`stopBackground`).
    private(set) var backgroundWork: [BackgroundWork] = []
    /// How many store reads (`Effect.read`) this runtime performed: what a burst of keys cost.
    private(set) var reads = 0
    /// Where the interactive loop's store calls run (`run` makes it), so a slow store never holds a frame;
    /// nil without a terminal (`snapshot`, benchmarks, tests), where a call runs on the caller's thread.
    private(set) var lane: StoreLane?
    /// Whether the last store call reached the store's server.
    let reach = StoreReach()

    public init(
        state: AppState, theme: Theme, store: any ConsoleStore, catalog: ThemeCatalog, callbacks: (any CallbackSending)? = nil
    ) {
        self.state = state
        self.theme = theme
        self.store = store
        self.catalog = catalog
        self.callbacks = callbacks
    }

    /// How long `dispatch(_:settle: true)` waits for replies to posts in flight.
    static let settleReplies: TimeInterval = 15

    /// Applies a message and every message its effects produce. With `settle`, deferred work is done
    /// and replies to posts in flight are waited for (at most `settleReplies`) and applied too before
    /// returning (tests, snapshots); the interactive loop does both between keys instead.
    /// A tick at the console's instant `now`, the wall clock reading `wall` (real time, which a screen
    /// measures elapsed time by: `ScreenContext.wall`), as the run loop makes them.
    public func tick(_ now: Instant, wall: Instant) {
        state.wall = wall
        dispatch(.tick(now), settle: false)
    }

    public func dispatch(_ message: Message, settle: Bool = true) {
        apply(message)
        guard settle else { return }
        let deadline = Date().addingTimeInterval(Self.settleReplies)
        while true {
            while performDeferred() {}
            let arrived = replies.take()
            for reply in arrived { apply(reply) }
            if arrived.isEmpty && deferred.isEmpty {
                guard replies.inFlight > 0, Date() < deadline else { return }
                replies.wait(until: deadline)
            }
        }
    }

    /// Sets the shown screen's filter to `text` in one step (`storedesk snapshot --filter`): one read of the
    /// list, where typing it would read it once a character.
    func setFilter(_ text: String) {
        dirty = true
        for effect in state.setFilter(text) { apply(perform(effect)) }
    }

    /// Performs the next deferred effect; false when there is none.
    @discardableResult
    public func performDeferred() -> Bool {
        guard !deferred.isEmpty else { return false }
        apply(perform(deferred.removeFirst()))
        return true
    }

    func apply(_ message: Message?) {
        guard let message else { return }
        var pending: [Message] = [message]
        var index = 0
        while index < pending.count {
            let effects = state.reduce(pending[index])
            index += 1
            dirty = true
            for effect in effects {
                if let next = perform(effect) { pending.append(next) }
            }
        }
    }

    func perform(_ effect: Effect) -> Message? {
        do {
            switch effect {
            case .read(let body):
                reads += 1
                return try onLane(body)
            case .write(let body):
                guard !state.session.readOnly else { return .failed("the store is open read-only") }
                return try onLane(body)
            case .loadTheme(let name):
                let (loaded, warnings) = try catalog.load(name)
                theme = loaded
                return .themeApplied(name: loaded.name, warnings: warnings)
            case .quit:
                return nil
            case .copy(let text):
                clipboard.append(text)
                return nil
            case .later(let effect):
                deferred.append(effect)
                return nil
            case .background(let body):
                let inbox = replies
                let store = self.store
                let work = BackgroundWork(inbox: inbox)
                backgroundWork.removeAll { $0.isFinished }
                backgroundWork.append(work)
                inbox.started()
                Thread.detachNewThread {
                    let message: Message
                    do { message = try body(store, work) } catch { message = .failed(Self.describe(error, store: store)) }
                    work.finish()
                    inbox.deliver(message)
                }
                return nil
            case .post(let body, let url, let reply):
                guard let callbacks else {
                    return reply(.failed(.other("this console has no HTTP client to reach game servers"), latencyMicros: 0))
                }
                let inbox = replies
                inbox.started()
                Task.detached {
                    let answer = await callbacks.post(body, to: url)
                    inbox.deliver(reply(answer))
                }
                return nil
            }
        } catch let error as ThemeError {
            return .failed(error.description)
        } catch {
            return .failed(Self.describe(error, store: store))
        }
    }

    /// A store call: on the lane in the interactive loop (nil when its message will come later), else here.
    /// Whether the store answered is noted on the way (`StoreReach`).
    private func onLane(_ body: @escaping @Sendable (any ConsoleStore) throws -> Message) throws -> Message? {
        let store = self.store, reach = reach
        guard let lane else { return try reach.noting(store) { try body(store) } }
        return lane.call {
            do { return try reach.noting(store) { try body(store) } } catch { return .failed(Self.describe(error, store: store)) }
        }
    }

    /// A failed effect's error in one line: a SQLite error or an unreadable value says what is wrong with
    /// which file, without the SQL or the row (which may hold a phone number).
    static func describe(_ error: any Error, store: any ConsoleStore) -> String {
        let text = store.storeError(for: error)?.description ?? "\(error)"
        return text.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }

    /// How long a closing console waits for its background work to stop.
    public static let backgroundStopLimit: TimeInterval = 10

    /// Tells every background work still running to stop and waits (at most `limit`) until each has:
    /// an export removes its unfinished file and ends, so none is left beside its target. Returns whether
    /// all ended. `run` calls it on its way out (a quit, or a signal).
    @discardableResult
    public func stopBackground(limit: TimeInterval = backgroundStopLimit) -> Bool {
        for work in backgroundWork { work.cancel() }
        let deadline = Date().addingTimeInterval(limit)
        let ended = backgroundWork.allSatisfy { $0.waitUntilFinished(before: deadline) }
        backgroundWork.removeAll { $0.isFinished }
        return ended
    }

    /// The interactive loop. Returns when the user quits or `shouldStop` says so (a signal), once its
    /// background work has stopped.
    public func run(
        device: ConsoleDevice, refreshInterval: TimeInterval, clock consoleClock: ConsoleClock, shouldStop: () -> Bool
    ) {
        let lane = StoreLane()
        self.lane = lane
        defer {
            // A write handed to the lane finishes before the store closes; then background work stops.
            lane.drain(before: Date().addingTimeInterval(Self.backgroundStopLimit))
            self.lane = nil
            stopBackground()
        }
        var consoleClock = consoleClock
        let watcher = try? store.commitWatcher()
        let ownCommits = CommitFlag()
        let observation = store.observeCommits { ownCommits.raise() }
        defer { _ = observation }

        if device.size != state.size { dispatch(.resize(device.size)) }
        for effect in state.start() { apply(perform(effect)) }
        var lastTick = Date.distantPast, lastPoll = Date(), lastFrame = Date.distantPast
        let frameInterval = 1.0 / 30

        while !state.quitting && !shouldStop() {
            // Everything already waiting is applied before the next frame: a burst of keys costs one redraw.
            let timeout = dirty || !deferred.isEmpty ? 0 : 30
            var waiting: [DeviceEvent] = []
            while let event = device.nextEvent(timeoutMilliseconds: waiting.isEmpty ? timeout : 0) { waiting.append(event) }
            applyWaiting(waiting)
            if state.quitting { return }
            // One slice of deferred work a turn, so the next key is never far away.
            performDeferred()
            for reply in replies.take() { dispatch(reply, settle: false) }
            // Store calls that outlasted a frame's wait, in the order they were made; the header says
            // "loading…" while any is still out.
            for message in lane.take() { dispatch(message, settle: false) }
            if lane.waiting != state.storeWaiting { dispatch(.storeWaiting(lane.waiting), settle: false) }
            if reach.lost == !state.storeUnreachable { dispatch(.storeReachable(!reach.lost), settle: false) }
            let clock = Date()
            if ownCommits.lower() { dispatch(.storeChanged, settle: false) }
            if clock.timeIntervalSince(lastPoll) >= refreshInterval {
                lastPoll = clock
                if (try? watcher?.changed()) == true { dispatch(.storeChanged, settle: false) }
            }
            if clock.timeIntervalSince(lastTick) >= state.current.tickInterval ?? 1 {
                lastTick = clock
                let wall = Instant(clock)
                // The store's clock may have moved the console's on (`Message.storeClock`).
                consoleClock.catchUp(to: state.clock, wall: wall)
                tick(consoleClock.now(wall: wall), wall: wall)
            }
            if dirty && clock.timeIntervalSince(lastFrame) >= frameInterval {
                device.present(state.render(), theme: theme)
                lastFrame = clock
                dirty = false
            }
            for text in clipboard { device.copy(text) }
            clipboard.removeAll()
        }
    }

    /// Applies events that were waiting together in the input, in order. A run of keys that edit the open
    /// `/` filter (a paste) is one `Message.filterEdits`: the list is read once for the run, not once a key.
    /// Stops at a key that quits.
    func applyWaiting(_ events: [DeviceEvent]) {
        var index = 0
        while index < events.count, !state.quitting {
            switch events[index] {
            case .resize(let size):
                dispatch(.resize(size), settle: false)
                index += 1
            case .key(let key) where state.editsFilter(key):
                var run: [Key] = []
                while index < events.count, case .key(let next) = events[index], state.editsFilter(next) {
                    run.append(next)
                    index += 1
                }
                dispatch(.filterEdits(run), settle: false)
            case .key(let key):
                dispatch(.key(key), settle: false)
                index += 1
            case .mouse(let event):
                dispatch(.mouse(event), settle: false)
                index += 1
            }
        }
    }

    /// Loads the first data without a terminal, as the console does before its first frame:
    /// `storedesk snapshot`, the benchmarks and the UI tests.
    public func settle() {
        for effect in state.start() { apply(perform(effect)) }
        while performDeferred() {}
    }
}

/// Replies to `Effect.post`s and the messages of `Effect.background`s, delivered from their threads and
/// taken by the console's loop.
final class ReplyInbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived: [Message] = []
    /// Posts started and not yet delivered.
    private var pending = 0

    var inFlight: Int { condition.withLock { pending } }

    func started() { condition.withLock { pending += 1 } }

    func deliver(_ message: Message) {
        condition.withLock {
            arrived.append(message)
            pending -= 1
            condition.broadcast()
        }
    }

    /// A message from work still in flight (a background work's progress): taken with the replies, the
    /// work still counted as in flight.
    func post(_ message: Message) {
        condition.withLock {
            arrived.append(message)
            condition.broadcast()
        }
    }

    /// What arrived since the last call, oldest first.
    func take() -> [Message] {
        condition.withLock {
            defer { arrived.removeAll() }
            return arrived
        }
    }

    /// Waits until something arrives or `deadline` passes.
    func wait(until deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while arrived.isEmpty && pending > 0 && Date() < deadline { _ = condition.wait(until: deadline) }
    }
}

/// A flag raised from the store's observation queue and lowered by the loop.
final class CommitFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    func raise() { lock.withLock { raised = true } }

    /// Returns whether it was raised, and lowers it.
    func lower() -> Bool {
        lock.withLock {
            defer { raised = false }
            return raised
        }
    }
}
