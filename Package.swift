// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "StoreDesk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "storedesk", targets: ["storedesk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/apple/swift-certificates", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", exact: "1.7.4"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // No traits: swift-configuration and full Foundation are not needed, and they cost build time.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // The team store: PostgreSQL through its Swift client (no libpq).
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // Pure domain: entities, rules, state machines, simulation, signatures. No curses, no GRDB.
        .target(
            name: "StoreDeskCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // App Store signed data verified as Apple's App Store Server Library does it: X.509 chains to
        // configured roots (swift-certificates), ES256 (swift-crypto). Kept apart so Core stays light and
        // a server can verify what it receives.
        .target(
            name: "StoreDeskTrust",
            dependencies: [
                "StoreDeskCore",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The demo dataset, embedded as a resource bundle. Lives in the top-level Data/ folder.
        .target(
            name: "StoreDeskDemoData",
            path: "Data",
            exclude: ["README.md"],
            resources: [.copy("Demo")]
        ),
        // The colour themes, embedded as a resource bundle. Lives in the top-level Themes/ folder.
        .target(
            name: "StoreDeskThemes",
            path: "Themes",
            resources: [.copy("dark.toml"), .copy("light.toml"), .copy("high-contrast.toml"), .copy("colorblind.toml")]
        ),
        // The store as the console sees it: protocols of named reads and writes, list pagers, and the values
        // they exchange. No GRDB, so another backend can implement it without touching a screen.
        .target(name: "StoreDeskStoreAPI", dependencies: ["StoreDeskCore"]),
        // GRDB: migrations, records, named write transactions, observation, generator, checks; implements
        // StoreDeskStoreAPI (and re-exports it). Imports verify signed notifications with StoreDeskTrust
        // against the roots the store keeps.
        .target(
            name: "StoreDeskSQLite",
            dependencies: [
                "StoreDeskCore",
                "StoreDeskStoreAPI",
                "StoreDeskTrust",
                "StoreDeskDemoData",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The one place that opens a store from `--db` and chooses its backend (`StoreOpener`), and the
        // benchmarks' SQLite baselines. Everything else holds `any Store` (StoreDeskStoreAPI).
        .target(name: "StoreDeskOpener", dependencies: ["StoreDeskCore", "StoreDeskStoreAPI", "StoreDeskSQLite", "StoreDeskPostgres"]),
        // PostgreSQL (the team store): the same areas as StoreDeskSQLite, on a server, through PostgresNIO;
        // implements StoreDeskStoreAPI. Its own schema and migrations; no GRDB.
        .target(
            name: "StoreDeskPostgres",
            dependencies: [
                "StoreDeskCore",
                "StoreDeskStoreAPI",
                "StoreDeskTrust",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The only code that sees curses.
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses"),
        .target(name: "StoreDeskTerminal", dependencies: ["CNcurses", "StoreDeskUI"]),
        // Screens: state, actions, reducers, views into a Canvas; themes; keymap. Reaches the store only
        // through StoreDeskStoreAPI.
        .target(
            name: "StoreDeskUI",
            dependencies: [
                "StoreDeskCore",
                "StoreDeskStoreAPI",
                "StoreDeskThemes",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // The network edges: callbacks POSTed to a game server (AsyncHTTPClient), the conformance check of
        // a game server's handler, and `storedesk serve` (Hummingbird). Moves bytes and calls the Store's
        // named writes; Core decides. The only code that sees NIO.
        .target(
            name: "StoreDeskNetwork",
            dependencies: [
                "StoreDeskCore",
                "StoreDeskStoreAPI",
                "StoreDeskTrust",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Wiring only: ArgumentParser commands.
        .executableTarget(
            name: "storedesk",
            dependencies: [
                "StoreDeskCore",
                "StoreDeskStoreAPI",
                "StoreDeskOpener",
                "StoreDeskUI",
                "StoreDeskTerminal",
                "StoreDeskTrust",
                "StoreDeskNetwork",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // Signs the demo's notifications with a chain made for the demo (see Data/README.md).
        .executableTarget(name: "storedesk-demo-signer", dependencies: ["StoreDeskCore", "StoreDeskTrust"]),
        .testTarget(name: "StoreDeskCoreTests", dependencies: ["StoreDeskCore"], resources: [.copy("Vectors")]),
        .testTarget(name: "StoreDeskSQLiteTests", dependencies: ["StoreDeskSQLite", "StoreDeskCore", "StoreDeskTrust"]),
        .testTarget(name: "StoreDeskTrustTests", dependencies: ["StoreDeskTrust", "StoreDeskCore"]),
        .testTarget(name: "StoreDeskTerminalTests", dependencies: ["StoreDeskTerminal", "StoreDeskUI"]),
        .testTarget(
            name: "StoreDeskUITests",
            dependencies: ["StoreDeskUI", "StoreDeskSQLite", "StoreDeskCore", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Golden")]),
        // One suite every backend passes: SQLite (a file) and PostgreSQL (a throwaway server of the suite's own).
        // A throwaway PostgreSQL cluster (Debian's initdb, 127.0.0.1, stopped when dropped) for the suites
        // that need a real server.
        .target(name: "PostgresClusterSupport", dependencies: ["StoreDeskPostgres", "StoreDeskSQLite"], path: "Tests/PostgresClusterSupport"),
        .testTarget(
            name: "StoreContractTests",
            dependencies: ["StoreDeskStoreAPI", "StoreDeskSQLite", "StoreDeskPostgres", "StoreDeskCore", "PostgresClusterSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["StoreDeskSQLite", "StoreDeskCore", "StoreDeskTrust", "StoreDeskPostgres", "PostgresClusterSupport"]),
        .testTarget(
            name: "StoreDeskNetworkTests",
            dependencies: [
                "StoreDeskNetwork", "StoreDeskSQLite", "StoreDeskCore", "StoreDeskUI", "StoreDeskTrust", "StoreDeskPostgres",
                "PostgresClusterSupport",
            ],
            resources: [.copy("GameServer")]),
    ],
    swiftLanguageModes: [.v6]
)
