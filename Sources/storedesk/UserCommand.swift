import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Look up players.", subcommands: [Show.self, Search.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One player's profile, accounts and subscriptions.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The user id.") var id: String
        @Flag(help: "Print the profile as JSON.") var json = false

        func run() throws {
            let profile = try reporting { try store.open(.readOnly).profile(userId: id) }
            if json {
                try printJSON(ProfileJSON(profile))
                return
            }
            let u = profile.user
            let zone = TimeZone.local
            print("\(u.displayName)  (id \(u.id)\(u.isGuest ? ", guest" : ""))")
            print("  name            \(u.name)")
            print("  friendly name   \(u.friendlyName.isEmpty ? "-" : u.friendlyName)")
            print("  account type    \(u.site.name) (site \(u.site.rawValue))")
            print("  age band        \(u.adultType.name)")
            print("  anti-addiction  \(u.fcm ? "applies" : "does not apply")")
            print("  real name       \(u.isRealNameVerified ? "verified" : "not verified")")
            print("  phone           \(u.phone.isEmpty ? "-" : u.maskedPhone)")
            print("  ID card         \(u.idCard.isEmpty ? "-" : u.idCard)")
            print("  client          \(u.clientId)")
            print("  created         \(u.createdAt.shortText(in: zone))")
            print("  game accounts   \(profile.gameAccounts.count)")
            for a in profile.gameAccounts {
                print("    app \(a.appId)  \(a.sid)/\(a.roleId)  \(a.roleName)  Apple ID \(a.appleId)")
            }
            print("  subscriptions   \(profile.subscriptions.count)")
            for s in profile.subscriptions {
                print("    \(s.productId)  \(s.state.name)  expires \(s.expiresDate.shortText(in: zone))")
            }
            print("  transactions    \(profile.transactionCount) (open restore requests: \(profile.openRestoreRequests))")
            for t in profile.recentTransactions {
                print("    \(t.id)  \(t.purchaseDate.shortText(in: zone))  \(t.productId)  \(t.state.rawValue)\(t.finished ? "" : " (unfinished)")")
            }
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Find players by id, name, friendly name or the last four digits of the phone.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Text to look for (Chinese works).") var text: String
        @Option(help: "At most this many results.") var limit: Int = 50
        @Flag(help: "Print the results as JSON.") var json = false

        func run() throws {
            let users = try reporting { () throws -> [User] in
                guard limit > 0 else { throw StoreError.invalidArgument("--limit must be above 0, got \(limit)") }
                return try store.open(.readOnly).searchUsers(text, limit: limit)
            }
            if json {
                try printJSON(users.map(UserJSON.init))
                return
            }
            for u in users {
                printColumns([u.id, u.name, u.friendlyName.isEmpty ? "-" : u.friendlyName, u.site.name, u.phone.isEmpty ? "-" : u.maskedPhone])
            }
            if users.isEmpty { FileHandle.standardError.write(Data("no user matches '\(text.controlsEscaped)'\n".utf8)) }
        }
    }
}

/// A user as JSON: the platform's user-info field names, phone masked, plus readable names.
struct UserJSON: Encodable {
    var id, name, friendly_name, id_card, phone, client_id, created_at: String
    var site, adult_type, authoriz_state, safety: Int
    var fcm, guest: Bool
    var site_name, adult_type_name: String

    init(_ u: User) {
        id = u.id
        name = u.name
        friendly_name = u.friendlyName
        id_card = u.idCard
        phone = u.maskedPhone
        client_id = u.clientId
        created_at = u.createdAt.iso8601
        site = u.site.rawValue
        adult_type = u.adultType.rawValue
        authoriz_state = u.authorizState
        safety = u.safety
        fcm = u.fcm
        guest = u.isGuest
        site_name = u.site.name
        adult_type_name = u.adultType.name
    }
}

struct ProfileJSON: Encodable {
    struct Account: Encodable {
        var app_id, apple_id, sid, role_id, role_name: String
    }
    struct SubscriptionJSON: Encodable {
        var original_transaction_id, product_id, group_id, state: String
        var status: Int
        var auto_renew: Bool
        var expires_date: String
    }
    struct TransactionJSON: Encodable {
        var transaction_id, product_id, state, purchase_date: String
        var finished: Bool
    }
    var user: UserJSON
    var game_accounts: [Account]
    var subscriptions: [SubscriptionJSON]
    var transaction_count: Int
    var open_restore_requests: Int
    var recent_transactions: [TransactionJSON]

    init(_ p: UserProfile) {
        user = UserJSON(p.user)
        game_accounts = p.gameAccounts.map {
            Account(app_id: $0.appId, apple_id: $0.appleId, sid: $0.sid, role_id: $0.roleId, role_name: $0.roleName)
        }
        subscriptions = p.subscriptions.map {
            SubscriptionJSON(
                original_transaction_id: $0.id, product_id: $0.productId, group_id: $0.groupId, state: $0.state.rawValue,
                status: $0.state.appleStatus, auto_renew: $0.autoRenew, expires_date: $0.expiresDate.iso8601)
        }
        transaction_count = p.transactionCount
        open_restore_requests = p.openRestoreRequests
        recent_transactions = p.recentTransactions.map {
            TransactionJSON(
                transaction_id: $0.id, product_id: $0.productId, state: $0.state.rawValue,
                purchase_date: $0.purchaseDate.iso8601, finished: $0.finished)
        }
    }
}
