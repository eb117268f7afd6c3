import StoreDeskCore
import StoreDeskStoreAPI

/// Work a reducer asks for; the runtime performs it and feeds the result back as a `Message`.
/// Reducers stay pure: they describe reads and writes over the store's protocol, never perform them.
public enum Effect: Sendable {
    /// A read on the store, run as a task (`StoreCalls`: one at a time, in the order asked); its result is
    /// dispatched.
    case read(@Sendable (any ConsoleStore) async throws -> Message)
    /// A write on the store, as a read is (never performed when the session is read-only).
    case write(@Sendable (any ConsoleStore) async throws -> Message)
    /// Load a theme by name and apply it.
    case loadTheme(String)
    /// Leave the console.
    case quit
    /// Put this text on the terminal's clipboard (`ConsoleDevice.copy`: OSC 52).
    case copy(String)
    /// Perform this effect once pending keys are handled: long work in slices, the console live between them.
    indirect case later(Effect)
    /// Long reading work (an export of a whole list): a task on a thread of its own, its reads taking turns
    /// with the console's, so keys and frames go on meanwhile; its message comes back as a reply does. It asks
    /// its `BackgroundWork` whether to stop (the console is closing: it is waited for) and tells it how
    /// far it got (`report`, a few times a second at most).
    case background(@Sendable (any ConsoleStore, BackgroundWork) async throws -> Message)
    /// POST a payment callback to a game server (`CallbackSending`); the reply comes back as a message
    /// whenever it arrives, the console live meanwhile.
    case post(body: String, url: String, reply: @Sendable (CallbackReply) -> Message)
}

/// Where the console's live simulation POSTs callbacks to real game servers. The UI knows only this
/// protocol and Core's `CallbackReply`; the executable wires in StoreDeskNetwork's HTTP client, so no
/// screen sees NIO. A reply never throws: a refused connection or a timeout is a reply too.
public protocol CallbackSending: Sendable {
    func post(_ body: String, to url: String) async -> CallbackReply
}

/// Everything that can change the console's state: keys, time, size, and the results of effects.
public enum Message: Sendable {
    case key(Key)
    /// Keys that were waiting together in the input while the `/` filter is open, each an edit of its
    /// text (a paste): applied to the text one after another, then the list is read once, not once a key.
    case filterEdits([Key])
    case resize(Size)
    /// A click or the wheel (`--no-mouse` turns them off in the terminal).
    case mouse(MouseEvent)
    case tick(Instant)
    /// The store changed (this process or another): visible data is fetched again.
    case storeChanged
    case appsLoaded([App])
    /// The store's own clock (or the open consoles', when ahead), read when the store changed: the console's
    /// clock catches up with it; nil: nothing to catch up with (a store without a clock, a clock shared).
    case storeClock(Instant?)
    /// An action or a result for one screen, typed by that screen (`ConsoleScreen.read`, `.prompt`).
    case screen(ScreenMessage)
    case themeApplied(name: String, warnings: [String])
    case failed(String)
    /// Work an effect finished, said on the status line (`:export`'s rows and file).
    case done(String)
    /// How far work still running got (`:export`'s rows so far), on the status line until the next
    /// report or its end; only the first of a run is logged.
    case progress(String)
    /// Show this screen with the item of this id selected (a `:find` result opened where it lives).
    case open(ScreenID, id: String)
    /// The interactive console's store calls are waiting on a store slower than a frame (true), or have all
    /// answered (false): the header says "loading…" meanwhile, and keys and frames go on (`StoreCalls`).
    case storeWaiting(Bool)
    /// The store's server could not be reached by the last store call (false), or answered again (true):
    /// the header says "reconnecting…" meanwhile, and the console goes on (`StoreError.unreachable`).
    case storeReachable(Bool)
}
