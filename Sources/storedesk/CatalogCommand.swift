import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk catalog import|show`: an app's own catalogue, from its Xcode StoreKit configuration file.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog", abstract: "An app's products, from its Xcode StoreKit configuration (.storekit) file.",
        subcommands: [Import.self, Show.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a .storekit file as an app's catalogue (developers only; one transaction; audited).",
            discussion: """
                Consumables, non-consumables, non-renewing and auto-renewable subscriptions (groups, levels, \
                periods), prices in the storefront's currency, family sharing, localizations, introductory, \
                promotional, offer-code and win-back offers, billing plans, and the file's time rate, Ask to Buy \
                and failing-transactions settings. Importing again updates; a product the file no longer lists \
                is kept. A key StoreDesk does not know is reported and skipped. A file that is not a StoreKit \
                configuration, or has a value StoreDesk cannot take, is refused in one line and the store is \
                left as it was.
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The .storekit file.") var file: String
        @Option(help: "The app whose catalogue it is.") var app: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (report, path) = try reporting { () throws -> (CatalogueImport.Report, String) in
                // The file is read and checked before the store is opened: a bad file leaves it untouched.
                let configuration = try StoreKitFile.read(file)
                let developer = try staff.member("catalog import", may: .importCatalogue)
                let database = try store.open(.readWrite)
                let source = (file as NSString).lastPathComponent
                let report = try database.importCatalogue(configuration, appId: app, source: source, by: developer, at: database.commandNow().instant)
                return (report, database.path)
            }
            try output.show(CatalogImportReport(report: report, file: file, store: path))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "An app's catalogue: products, subscription groups by level, offers, localizations, settings.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The app id.") var app: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let catalogue = try reporting { try store.open(.readOnly).catalogue(appId: app) }
            try output.show(CatalogReport(catalogue: catalogue))
        }
    }
}

/// Reading a `.storekit` file: the bytes, then Core's reader; errors name the file.
enum StoreKitFile {
    /// Xcode's files are kilobytes; anything this big is not one.
    static let limit = 32 * 1024 * 1024

    static func read(_ path: String) throws -> StoreKitConfiguration {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError.invalidArgument("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw StoreError.invalidArgument("\(path) is a directory, not a .storekit file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError.invalidArgument("\(path): cannot read it (permission denied)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw StoreError.invalidArgument("\(path): cannot read it (\(error.localizedDescription))")
        }
        guard data.count <= limit else {
            throw StoreError.invalidArgument("\(path) is larger than 32 MB: not a StoreKit configuration")
        }
        do {
            return try StoreKitConfiguration.read(data)
        } catch {
            let line = error.description.split(whereSeparator: \.isNewline).joined(separator: " ")
            if case .invalid = error { throw StoreError.invalidArgument("\(path): \(line)") }
            throw StoreError.invalidArgument("\(path) \(line)")
        }
    }
}
