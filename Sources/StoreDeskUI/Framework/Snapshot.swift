import StoreDeskStoreAPI

/// One frame rendered without a terminal, exactly as the console would draw it: for
/// `storedesk snapshot`, golden tests, benchmarks and the README's pictures.
public enum Snapshot {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func render(
        state: AppState, theme: Theme, store: any ConsoleStore, catalog: ThemeCatalog, select: String? = nil,
        filter: String? = nil
    ) throws -> Canvas {
        let runtime = ConsoleRuntime(state: state, theme: theme, store: store, catalog: catalog)
        runtime.settle()
        if let failure = runtime.state.status, failure.kind == .error { throw Failure(description: failure.text) }
        if let filter {
            // The whole filter in one step, as if pasted: typed a key at a time, each key read the list for
            // its prefix, so a filter cost the square of its length (16,000 characters: 28 s).
            runtime.dispatch(.key(.character("/")))
            runtime.setFilter(filter)
            runtime.dispatch(.key(.enter))
        }
        if let select {
            runtime.dispatch(.key(.character(":")))
            for character in "select " + select { runtime.dispatch(.key(.character(character))) }
            runtime.dispatch(.key(.enter))
            if let failure = runtime.state.status, failure.kind == .error { throw Failure(description: failure.text) }
        }
        return runtime.state.render()
    }
}
