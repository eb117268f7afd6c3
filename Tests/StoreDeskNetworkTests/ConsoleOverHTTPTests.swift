import Foundation
import StoreDeskCore
import StoreDeskNetwork
@testable import StoreDeskSQLite
@testable import StoreDeskUI
import Testing

/// The console's live simulation with `:callback URL`: its callbacks go to a real PHP game server, and
/// the Queue screen shows how they went.
@Suite(.serialized) struct ConsoleOverHTTPTests {
    /// The console's HTTP client as the executable wires it (`ConsoleCallbacks`): StoreDeskNetwork's poster.
    struct Poster: CallbackSending {
        let poster: CallbackPoster
        func post(_ body: String, to url: String) async -> CallbackReply { await poster.post(body, to: url) }
    }

    @Test(":callback URL sends the console's simulation callbacks to a PHP game server; grants agree; the header counts the attempts")
    func consoleCallbacksToPHP() throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let keys = Dictionary(uniqueKeysWithValues: try store.paymentCatalogue().apps.map { ($0.id, $0.appKey) })
        let php = try PHPGameServer(keys: keys, folder: folder)
        let clock = try DemoDatasetLoader.load(from: DemoDatasetLoader.embeddedDirectory(environment: [:])).meta.clock
        let poster = CallbackPoster(timeout: 5, connectionsPerHost: 8)
        defer { _ = try? waitForShutdown(poster) }
        let state = AppState(
            size: Size(width: 120, height: 40), session: Session(role: .developer, actor: "tester", readOnly: false), storePath: path,
            clock: clock, timeZone: TimeZone(identifier: "UTC") ?? .current, themeName: "dark", themeNames: ["dark"])
        let console = ConsoleRuntime(
            state: state, theme: .builtInDefault, store: store, catalog: ThemeCatalog(environment: [:]), callbacks: Poster(poster: poster))
        console.settle()
        func press(_ keys: Key...) { for key in keys { console.dispatch(.key(key)) } }
        func type(_ text: String) { for c in text { console.dispatch(.key(.character(c))) } }
        press(.character("2"), .character(":"))
        type("callback ftp://example.com/x")
        press(.enter)
        #expect(console.state.status?.text.contains(":callback 'ftp://example.com/x' must start with http:// or https://") == true,
                "\(String(describing: console.state.status))")
        press(.character(":"))
        type("callback " + php.url)
        press(.enter)
        press(.character("r"))
        var now = clock
        for _ in 0..<40 {
            now = now.adding(.init(millis: 250))
            console.dispatch(.tick(now))
        }
        let queue = console.state.screenState(QueueScreen.self)
        #expect(queue.routes.values.allSatisfy { $0 == php.url } && !queue.routes.isEmpty)
        let text = console.state.render().plainText
        #expect(text.contains("HTTP → \(php.url) (every app)"), "\(text)")
        press(.character("r"))

        let (attempts, delivered, grants) = try store.reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM server_callback WHERE url = ?", arguments: [php.url]) ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM server_callback WHERE url = ? AND http_status = 200 AND reply = 'success'", arguments: [php.url]) ?? 0,
             try Set(String.fetchAll(db, sql: """
                SELECT g.order_id FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id WHERE o.transaction_id LIKE 'live%'
                """)))
        }
        #expect(attempts > 0 && delivered > 0)
        #expect(Set(try php.grants().compactMap { $0["order_id"] }) == grants, "the PHP ledger and the store grant the same orders")
        #expect(try store.check().isEmpty)
        // The header of a fresh look at the screen sums the store's latest attempts.
        console.dispatch(.key(.ctrl("r")))
        #expect(console.state.render().plainText.contains("\(attempts) POSTed: "))
    }

    private func waitForShutdown(_ poster: CallbackPoster) throws {
        let done = DispatchSemaphore(value: 0)
        Task {
            try? await poster.shutdown()
            done.signal()
        }
        done.wait()
    }
}
