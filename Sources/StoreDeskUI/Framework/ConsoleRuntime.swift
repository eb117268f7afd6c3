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

/// Runs the Elm loop: messages into the reducer, effects performed against the store as tasks, their
/// results fed back as messages through one inbox, frames drawn at a capped rate.
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
    /// The messages of effects run as tasks (store calls, posts' replies, background work), as they arrive.
    let inbox = ConsoleInbox()
    /// The store calls, one at a time in the order asked, on a thread of their own.
    private let calls = StoreCalls()
    /// Background work started and not known to have ended (`Effect.background`): stopped and waited
    /// for when the console closes (`stopBackground`).
    private(set) var backgroundWork: [BackgroundWork] = []
    /// How many store reads (`Effect.read`) this runtime performed: what a burst of keys cost.
    private(set) var reads = 0
    /// Whether the interactive loop runs (`run`): a store call's message comes through the inbox while the
    /// loop goes on, and a slow store never holds a key or a frame. Without a terminal (`snapshot`,
    /// benchmarks, tests) each call is waited for and its message applied where it was asked.
    private(set) var live = false
    /// How long a frame is held for the store calls a key just asked, so it shows their answers rather than
    /// a pane still loading: under one frame at 30 frames a second. A call out longer is "loading…".
    static let patience: TimeInterval = 0.025
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
            let arrived = inbox.take()
            for reply in arrived { apply(reply) }
            if arrived.isEmpty && deferred.isEmpty {
                guard inbox.inFlight > 0, Date() < deadline else { return }
                inbox.wait(until: deadline)
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
                return storeCall(body)
            case .write(let body):
                guard !state.session.readOnly else { return .failed("the store is open read-only") }
                return storeCall(body)
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
                startBackground(body)
                return nil
            case .post(let body, let url, let reply):
                guard let callbacks else {
                    return reply(.failed(.other("this console has no HTTP client to reach game servers"), latencyMicros: 0))
                }
                post(body, to: url, with: callbacks, reply: reply)
                return nil
            }
        } catch let error as ThemeError {
            return .failed(error.description)
        } catch {
            return .failed(Self.describe(error, store: store))
        }
    }

    /// A background work: a task on a thread of its own, its message through the inbox when it ends.
    private func startBackground(_ body: @escaping @Sendable (any ConsoleStore, BackgroundWork) async throws -> Message) {
        let inbox = self.inbox, store = self.store
        let work = BackgroundWork(inbox: inbox)
        backgroundWork.removeAll { $0.isFinished }
        backgroundWork.append(work)
        inbox.started()
        SerialThreadExecutor(label: "storedesk.background").start {
            let message = await Self.message(of: store) { try await body(store, work) }
            work.finish()
            inbox.deliver(message)
        }
    }

    /// A callback POSTed as a task; its reply through the inbox whenever it comes.
    private func post(
        _ body: String, to url: String, with callbacks: any CallbackSending, reply: @escaping @Sendable (CallbackReply) -> Message
    ) {
        let inbox = self.inbox
        inbox.started()
        Task {
            let answer = await callbacks.post(body, to: url)
            inbox.deliver(reply(answer))
        }
    }

    /// A store call, as a task after the calls asked before it: in the interactive loop its message comes
    /// through the inbox (nil here), else it is waited for and returned. Whether the store answered is noted
    /// on the way (`StoreReach`).
    private func storeCall(_ body: @escaping @Sendable (any ConsoleStore) async throws -> Message) -> Message? {
        let store = self.store, reach = reach, inbox = self.inbox
        let call = inbox.ask()
        calls.run {
            inbox.answer(call, await Self.message(of: store) { try await reach.noting(store) { try await body(store) } })
        }
        return live ? nil : inbox.take(call: call)
    }

    /// What an effect's work said, or its error as a message (`describe`).
    static func message(of store: any ConsoleStore, _ work: () async throws -> Message) async -> Message {
        do { return try await work() } catch { return .failed(describe(error, store: store)) }
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
        // Events read and not applied yet: held while a call a key asked is young.
        var held: [DeviceEvent] = []
        live = true
        defer {
            // A write already asked finishes before the store closes, and what the calls answered is
            // applied, then the keys already read (unless one quit): the state left is the one the frames
            // would have shown. Then background work stops.
            inbox.drain(before: Date().addingTimeInterval(Self.backgroundStopLimit))
            live = false
            for message in inbox.take() { apply(message) }
            _ = applyWaiting(held)
            stopBackground()
        }
        var consoleClock = consoleClock
        let watcher = try? store.commitWatcher()
        let ownCommits = CommitFlag()
        let observation = store.observeCommits { ownCommits.raise() }
        defer { _ = observation }

        if device.size != state.size { dispatch(.resize(device.size), settle: false) }
        for effect in state.start() { apply(perform(effect)) }
        var lastTick = Date.distantPast, lastPoll = Date(), lastFrame = Date.distantPast
        let frameInterval = 1.0 / 30

        while !state.quitting && !shouldStop() {
            // Everything already waiting is applied before the next frame: a burst of keys costs one redraw.
            // While a store call just asked is out the input is looked at every millisecond, so its answer is
            // taken as soon as it comes; a slow call's within a frame.
            let timeout = !deferred.isEmpty ? 0 : callJustAsked() ? 1 : dirty || !held.isEmpty ? 0 : 30
            var first = true
            while let event = device.nextEvent(timeoutMilliseconds: first ? timeout : 0) {
                held.append(event)
                first = false
            }
            // Answers first, then keys: a key meets the state the answers to the calls before it make.
            for message in inbox.take() { dispatch(message, settle: false) }
            held = applyWaiting(held)
            if state.quitting { return }
            // One slice of deferred work a turn, so the next key is never far away.
            performDeferred()
            // Store calls' messages in the order the calls were made, and replies as they came.
            for message in inbox.take() { dispatch(message, settle: false) }
            let clock = Date()
            // The header says "loading…" while a call has been out longer than a frame's patience; a call
            // younger than that holds the frame, which would show its pane before the answer.
            let calls = callsOut(at: clock)
            let slow = calls == .slow
            if slow != state.storeWaiting { dispatch(.storeWaiting(slow), settle: false) }
            if reach.lost == !state.storeUnreachable { dispatch(.storeReachable(!reach.lost), settle: false) }
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
            if dirty && clock.timeIntervalSince(lastFrame) >= frameInterval && calls != .young {
                device.present(state.render(), theme: theme)
                lastFrame = clock
                dirty = false
            }
            for text in clipboard { device.copy(text) }
            clipboard.removeAll()
        }
    }

    /// How long the oldest store call still out has been out, at `clock`: none out; young (asked less than
    /// `patience` ago: the loop holds keys and the frame for it, and a local file's calls all answer within
    /// that); slow (keys and frames go on, and the header says "loading…").
    enum CallsOut: Equatable { case none, young, slow }

    func callsOut(at clock: Date = Date()) -> CallsOut {
        guard let asked = inbox.oldestCall else { return .none }
        return clock.timeIntervalSince(asked) < Self.patience ? .young : .slow
    }

    /// Whether a call asked less than `patience` ago is still out (`CallsOut.young`).
    func callJustAsked() -> Bool { callsOut() == .young }

    /// Applies events that were waiting together in the input, in order, and returns those it left. A run
    /// of keys that edit the open `/` filter (a paste) is one `Message.filterEdits`: the list is read once
    /// for the run, not once a key. Stops at a key that quits, and while a store call an event asked is
    /// young (`callJustAsked`): the next key waits for its answer, as it would had the call answered at once
    /// (`g` then `d` declines the first row, not the one selected before the page came).
    func applyWaiting(_ events: [DeviceEvent]) -> [DeviceEvent] {
        var index = 0
        while index < events.count, !state.quitting, !callJustAsked() {
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
        return Array(events[index...])
    }

    /// Loads the first data without a terminal, as the console does before its first frame:
    /// `storedesk snapshot`, the benchmarks and the UI tests.
    public func settle() {
        for effect in state.start() { apply(perform(effect)) }
        while performDeferred() {}
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
