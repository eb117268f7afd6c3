import Foundation
import StoreDeskCore
import StoreDeskNetwork
import StoreDeskUI

/// The console's way to real game servers (`:callback URL`, apps' own callback URLs): StoreDeskNetwork's
/// `CallbackPoster`, made on the first callback (a console that never POSTs starts no event loop) and
/// shut down when the console closes. The UI sees only `CallbackSending`.
final class ConsoleCallbacks: CallbackSending, @unchecked Sendable {
    private let lock = NSLock()
    private var poster: CallbackPoster?

    func post(_ body: String, to url: String) async -> CallbackReply {
        let poster = lock.withLock {
            if let poster = self.poster { return poster }
            let made = CallbackPoster(timeout: CallbackPoster.defaultTimeout, connectionsPerHost: 16)
            self.poster = made
            return made
        }
        return await poster.post(body, to: url)
    }

    /// Closes the connections, if any were opened.
    func shutdown() {
        guard let poster = lock.withLock({ self.poster }) else { return }
        try? poster.shutdownBlocking()
    }
}
