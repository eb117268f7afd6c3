import GRDB

/// The SQLite store's schema and its history, a type of its own: `migrator` registers every migration
/// in order (append-only), and each migration's SQL is a constant beside it. `AppDatabase` opens and
/// checks a store against `migrator`; nothing else here knows about a connection.
public enum SQLiteMigrations {
    /// The schema's history. Append-only: a shipped migration is never edited, a change is a new one.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-foundation") { db in
            try db.execute(sql: foundationSchema)
        }
        migrator.registerMigration("v2-payment-queue") { db in
            try db.execute(sql: paymentQueueSchema)
        }
        migrator.registerMigration("v3-restore-desk") { db in
            try db.execute(sql: restoreDeskSchema)
        }
        migrator.registerMigration("v4-subscriptions") { db in
            try db.execute(sql: subscriptionEventSchema)
        }
        migrator.registerMigration("v5-login-entries") { db in
            try db.execute(sql: loginEntriesSchema)
        }
        migrator.registerMigration("v6-lean-queue-indexes") { db in
            try db.execute(sql: leanQueueIndexes)
        }
        migrator.registerMigration("v7-subscription-time-rate") { db in
            try db.execute(sql: subscriptionTimeRateSchema)
        }
        // Apple's refund reason (0 other, 1 app issue) beside the kind in revocation_reason; NULL when unknown.
        migrator.registerMigration("v8-subscription-apple-revocation-reason") { db in
            try db.execute(sql: "ALTER TABLE subscription ADD COLUMN apple_revocation_reason INTEGER")
        }
        // Many writers on one store: who owns the payment queue's work in flight, and order-number blocks.
        migrator.registerMigration("v9-payment-runs") { db in
            try db.execute(sql: paymentRunSchema)
        }
        // An app's Apple ID and the App Store environments it takes: what signed data is checked against.
        migrator.registerMigration("v11-app-apple-identity") { db in
            try db.execute(sql: appAppleIdentitySchema)
        }
        // Signatures verified: the roots a store trusts, and how each notification was trusted.
        migrator.registerMigration("v11a-trust-roots-and-provenance") { db in
            try db.execute(sql: trustSchema)
        }
        // The line of its file each notification came from, so an import names the line a repeat repeats
        // from the store instead of remembering every line it took in.
        migrator.registerMigration("v11b-notification-source-line") { db in
            try db.execute(sql: "ALTER TABLE subscription_event ADD COLUMN source_line INTEGER")
        }
        // Where an app's game server takes payment callbacks (`apps set ID --callback-url URL`).
        migrator.registerMigration("v12-app-callback-url") { db in
            try db.execute(sql: appCallbackSchema)
        }
        // A team's own catalogue as its StoreKit configuration file gives it (`storedesk catalog import`).
        migrator.registerMigration("v12b-catalogue") { db in
            try db.execute(sql: catalogueSchema)
        }
        // Callbacks over real HTTP (the platform's side) and StoreDesk as a game server (`serve`).
        migrator.registerMigration("v13-callbacks-over-http") { db in
            try db.execute(sql: callbacksOverHTTPSchema)
        }
        // One time line a store: the audit log runs newest first by its sequence (`id`), not by the instant
        // each line was stamped at, so its filters seek on (filter, id).
        migrator.registerMigration("v14-audit-sequence") { db in
            try db.execute(sql: auditSequenceSchema)
        }
        // One search for every id (`storedesk find`): the columns it seeks on that had no index.
        migrator.registerMigration("v15-find-indexes") { db in
            try db.execute(sql: AppDatabase.findIndexes)
        }
        // A player's history (`user history`): the audit lines about a player or one of their transactions
        // (`subject` is the user id, or `transaction ID`), newest first by sequence.
        migrator.registerMigration("v16-audit-subject") { db in
            try db.execute(sql: "CREATE INDEX audit_on_subject_sequence ON audit_log(subject, id)")
        }
        // The Queue's sparklines: the events they count, by the instant on the store's clock, so the last
        // minutes are a seek however long the store's history. Partial, so the queue's other events (most
        // of the eight rows a purchase writes) pay nothing for it.
        migrator.registerMigration("v17-event-activity") { db in
            try db.execute(sql: "CREATE INDEX transaction_event_activity ON transaction_event(at, kind) WHERE \(QueueProcedures.activityKinds)")
        }
        // The Restores list sorted by player or by transaction (`:sort player|transaction`) while it shows one
        // status: a seek on (status, key, id) either way, as `restore_on_status` gives the prompted order.
        migrator.registerMigration("v18-restore-sorts") { db in
            try db.execute(sql: restoreSortIndexes)
        }
        // Apple's half: the store's own signing chain and each app's App Store Server API keys.
        migrator.registerMigration("v19-apple-api") { db in
            try db.execute(sql: appleAPISchema)
        }
        // Notifications sent: each app's notification URL, and every notification's delivery to it.
        migrator.registerMigration("v20-notification-sends") { db in
            try db.execute(sql: notificationSendSchema)
        }
        // The support desk's consumption requests (CONSUMPTION_REQUEST raised, answered or missed).
        migrator.registerMigration("v21-apple-support") { db in
            try db.execute(sql: appleSupportSchema)
        }
        // Mass renewal extensions' statuses, and the indexes Get Transaction History and Get Refund History page on.
        migrator.registerMigration("v22-mass-extensions") { db in
            try db.execute(sql: massExtensionSchema)
        }
        // The user list sorted by the columns it shows: CREATED (`created_at`) and NAME (the friendly name,
        // else the login name), each a seek (before, `created` ran in insertion order and `name` by login name).
        migrator.registerMigration("v23-user-orders") { db in
            try db.execute(sql: userOrderSchema)
        }
        return migrator
    }()

    /// `app.notification_url`: where `serve` sends the app's App Store Server Notifications V2;
    /// `app.notification_after`: the last notification of the log (`subscription_event.id`) already
    /// considered for it (set to the log's end when a URL is set, so only notifications after it are sent).
    /// `notification_delivery`: one a notification sent, its state (`pending` with the store instant its next
    /// attempt is due, `delivered`, `failed`), how many attempts were made, and the claim of the `serve` that
    /// is sending it now (`claimed_by` until `claimed_until`), so two serves never make one attempt twice;
    /// `notification_attempt`: each attempt, once (`UNIQUE (event_id, attempt)`), with Apple's result name.
    static let notificationSendSchema = """
        ALTER TABLE app ADD COLUMN notification_url TEXT
          CHECK (notification_url LIKE 'http://%' OR notification_url LIKE 'https://%');
        ALTER TABLE app ADD COLUMN notification_after INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE notification_delivery (
            event_id INTEGER PRIMARY KEY REFERENCES subscription_event(id),
            app_id TEXT NOT NULL REFERENCES app(id),
            user_id TEXT,
            state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
            attempts INTEGER NOT NULL CHECK (attempts BETWEEN 0 AND 6),
            next_attempt_at INTEGER,
            claimed_by TEXT,
            claimed_until INTEGER,
            created_at INTEGER NOT NULL,
            CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL))
        );
        CREATE INDEX notification_delivery_due ON notification_delivery(next_attempt_at) WHERE state = 'pending';
        CREATE INDEX notification_delivery_on_user ON notification_delivery(user_id, event_id);
        CREATE INDEX notification_delivery_on_state ON notification_delivery(state);
        CREATE TABLE notification_attempt (
            id INTEGER PRIMARY KEY,
            event_id INTEGER NOT NULL REFERENCES notification_delivery(event_id),
            attempt INTEGER NOT NULL CHECK (attempt BETWEEN 1 AND 6),
            at INTEGER NOT NULL,
            result TEXT NOT NULL,
            http_status INTEGER,
            detail TEXT NOT NULL,
            url TEXT NOT NULL,
            UNIQUE (event_id, attempt)
        );
        """

    /// `signer`: the store's one signing chain (certificates DER, private keys PKCS#8 DER), made by
    /// `storedesk signer create` or on first use; `app_api_key`: each app's App Store Server API keys, the
    /// public half only, by (app, key id); `apple_app_account_token`: the token Set App Account Token gave
    /// an original transaction, which its transactions carry instead of their game account's;
    /// `apple_renewal_extension`: each Extend a Subscription Renewal Date done (at most twice in 365 days).
    static let appleAPISchema = """
        CREATE TABLE signer (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            leaf_der BLOB NOT NULL,
            intermediate_der BLOB NOT NULL,
            root_der BLOB NOT NULL,
            leaf_key BLOB NOT NULL,
            intermediate_key BLOB NOT NULL,
            root_key BLOB NOT NULL,
            root_sha256 TEXT NOT NULL CHECK (length(root_sha256) = 64),
            created_at INTEGER NOT NULL,
            created_by TEXT NOT NULL
        );
        CREATE TABLE app_api_key (
            app_id TEXT NOT NULL REFERENCES app(id),
            key_id TEXT NOT NULL,
            issuer_id TEXT NOT NULL,
            public_key BLOB NOT NULL,
            added_at INTEGER NOT NULL,
            added_by TEXT NOT NULL,
            PRIMARY KEY (app_id, key_id)
        ) WITHOUT ROWID;
        CREATE TABLE apple_app_account_token (
            original_transaction_id TEXT PRIMARY KEY NOT NULL REFERENCES store_transaction(id),
            app_account_token TEXT NOT NULL,
            set_at INTEGER NOT NULL,
            set_by TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE apple_renewal_extension (
            id INTEGER PRIMARY KEY,
            original_transaction_id TEXT NOT NULL REFERENCES subscription(original_transaction_id),
            request_identifier TEXT NOT NULL,
            extend_by_days INTEGER NOT NULL CHECK (extend_by_days BETWEEN 1 AND 90),
            extend_reason_code INTEGER NOT NULL CHECK (extend_reason_code BETWEEN 0 AND 3),
            extended_at INTEGER NOT NULL,
            previous_expires_date INTEGER NOT NULL,
            effective_date INTEGER NOT NULL,
            extended_by TEXT NOT NULL,
            UNIQUE (original_transaction_id, request_identifier)
        );
        """

    /// `apple_consumption_request`: a CONSUMPTION_REQUEST raised for a consumable's refund request (one a
    /// transaction: a later one replaces it once it is no longer open), its 12-hour deadline counted from
    /// `requested_at`, and the consumption information that answered it (`answer`, Apple's JSON).
    static let appleSupportSchema = """
        CREATE TABLE apple_consumption_request (
            transaction_id TEXT PRIMARY KEY NOT NULL REFERENCES store_transaction(id),
            app_id TEXT NOT NULL REFERENCES app(id),
            user_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            requested_at INTEGER NOT NULL,
            requested_by TEXT NOT NULL,
            answered_at INTEGER,
            answered_by TEXT,
            answer TEXT CHECK (answer IS NULL OR json_valid(answer)),
            CHECK ((answered_at IS NULL) = (answer IS NULL))
        ) WITHOUT ROWID;
        CREATE INDEX consumption_request_on_requested ON apple_consumption_request(requested_at);
        """

    /// `apple_mass_extension`: each Extend Subscription Renewal Dates for All Active Subscribers an app ran, by
    /// product and request identifier, when it was done and its counts (what its status request answers, after any restart
    /// and from any serve). `transaction_by_customer`: a player's transactions of an app by purchase date then
    /// id, the keyset Get Transaction History pages on (either way); `transaction_revoked_by_customer`: the
    /// revoked ones by revocation date then id, Get Refund History's. Both lead with the app, so a read of
    /// a player's rows in every app (`user history`) keeps seeking `transaction_on_user` in date order.
    /// The user list's orders by the columns it shows (`UserOrder.keySQL`).
    static let userOrderSchema = """
        CREATE INDEX user_on_created ON user(created_at);
        CREATE INDEX user_on_display_name ON user\(UserOrder.displayNameSQL);
        """

    static let massExtensionSchema = """
        CREATE TABLE apple_mass_extension (
            app_id TEXT NOT NULL REFERENCES app(id),
            product_id TEXT NOT NULL,
            request_identifier TEXT NOT NULL,
            complete_date INTEGER NOT NULL,
            succeeded_count INTEGER NOT NULL CHECK (succeeded_count >= 0),
            failed_count INTEGER NOT NULL CHECK (failed_count >= 0),
            requested_by TEXT NOT NULL,
            PRIMARY KEY (app_id, product_id, request_identifier)
        ) WITHOUT ROWID;
        CREATE INDEX transaction_by_customer ON store_transaction(app_id, user_id, purchase_date, id);
        CREATE INDEX transaction_revoked_by_customer ON store_transaction(app_id, user_id, revocation_date, id)
          WHERE revocation_date IS NOT NULL;
        """

    /// `trust_root`: the root certificates App Store chains are validated to (`storedesk trust add`), by
    /// their SHA-256. `subscription_event` is rebuilt to say how each notification was trusted:
    /// `verified` (with the root and the leaf's subject and serial), `decoded_json`, `unverified_jws`
    /// (signed, not verified: taken with `--allow-unverified`, or imported before this version, as every
    /// signed row already stored was), `storekit_testing` (Xcode or LocalTesting, not signed by the App
    /// Store) or `simulated`. A verified row always names its signer; no other row does. The table is now a
    /// rowid table, rows in the order they came, with the UUID in an index of its own: an import of a
    /// hundred thousand notifications appends its rows instead of scattering them by UUID across the file.
    static let trustSchema = """
        CREATE TABLE trust_root (
            id INTEGER PRIMARY KEY,
            sha256 TEXT NOT NULL UNIQUE CHECK (length(sha256) = 64),
            subject TEXT NOT NULL,
            der BLOB NOT NULL,
            not_valid_before INTEGER NOT NULL,
            not_valid_after INTEGER NOT NULL,
            added_at INTEGER NOT NULL,
            added_by TEXT NOT NULL
        );
        CREATE TABLE subscription_event_v11 (
            id INTEGER PRIMARY KEY,
            notification_uuid TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            notification_type TEXT NOT NULL,
            subtype TEXT,
            signed_date INTEGER NOT NULL,
            transaction_id TEXT,
            product_id TEXT,
            provenance TEXT NOT NULL
              CHECK (provenance IN ('verified', 'decoded_json', 'unverified_jws', 'storekit_testing', 'simulated')),
            root_sha256 TEXT,
            root_subject TEXT,
            signer_subject TEXT,
            signer_serial TEXT,
            payload TEXT NOT NULL CHECK (json_valid(payload)),
            source TEXT NOT NULL,
            imported_at INTEGER NOT NULL,
            CHECK ((provenance = 'verified') = (root_sha256 IS NOT NULL AND root_subject IS NOT NULL
              AND signer_subject IS NOT NULL AND signer_serial IS NOT NULL))
        );
        INSERT INTO subscription_event_v11 (notification_uuid, original_transaction_id, notification_type, subtype,
          signed_date, transaction_id, product_id, provenance, payload, source, imported_at)
        SELECT notification_uuid, original_transaction_id, notification_type, subtype, signed_date, transaction_id,
          product_id, provenance, payload, source, imported_at
        FROM subscription_event ORDER BY imported_at, signed_date;
        DROP TABLE subscription_event;
        ALTER TABLE subscription_event_v11 RENAME TO subscription_event;
        CREATE UNIQUE INDEX subscription_event_on_uuid ON subscription_event(notification_uuid);
        CREATE INDEX subscription_event_on_chain ON subscription_event(original_transaction_id, signed_date);
        """

    /// Every run of the payment queue (a `simulate`, a console's simulation, a benchmark) and the
    /// restore desk gets a row: its number is the block its platform order ids are numbered in
    /// (`OrderNumbers`; AUTOINCREMENT, so a number is never handed out twice), and a run owns the
    /// unfinished transactions it created or took over (`store_transaction.run_id`). Another process
    /// takes them over only once their owner is gone: `ended_at` set, or its kernel lock on byte `id`
    /// of `STORE-runs` free (`host` is the machine's boot id when the owner holds that lock), or, where
    /// the lock cannot tell, `heartbeat_at` older than the lease. `taken_over_by` says who took over.
    /// `orders_issued` counts the numbers a block handed out when the store numbers them (the restore
    /// desk). Transactions written before this migration, or outside any run, have no owner.
    static let paymentRunSchema = """
        CREATE TABLE payment_run (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL CHECK (kind IN ('simulate', 'console', 'bench', 'restores')),
            pid INTEGER NOT NULL,
            host TEXT,
            started_at INTEGER NOT NULL,
            heartbeat_at INTEGER NOT NULL,
            ended_at INTEGER,
            taken_over_by INTEGER REFERENCES payment_run(id),
            orders_issued INTEGER NOT NULL DEFAULT 0 CHECK (orders_issued >= 0)
        );
        ALTER TABLE store_transaction ADD COLUMN run_id INTEGER REFERENCES payment_run(id);
        """

    /// `apple_app_id`: App Store Connect's numeric app id, which Production signed data must carry
    /// (NULL until the team gives it). `environment`: which App Store environments' data the app takes.
    static let appAppleIdentitySchema = """
        ALTER TABLE app ADD COLUMN apple_app_id INTEGER CHECK (apple_app_id > 0);
        ALTER TABLE app ADD COLUMN environment TEXT NOT NULL DEFAULT 'both'
          CHECK (environment IN ('sandbox', 'production', 'both'));
        """

    /// `callback_url`: the game server's payment callback URL, http or https; NULL when none is set.
    static let appCallbackSchema = """
        ALTER TABLE app ADD COLUMN callback_url TEXT
          CHECK (callback_url LIKE 'http://%' OR callback_url LIKE 'https://%');
        """

    /// The catalogue an app imported from an Xcode StoreKit configuration, beside the `product` rows it
    /// maps onto: `catalogue` (one per app: the file, when and by whom, its storefront, currency and test
    /// settings), its subscription groups, each product's StoreKit details (type, reference name, price
    /// as written, family sharing, group and level, period), localizations, offers and billing plans.
    /// An import replaces the app's rows whole; `product` rows are updated, never deleted.
    static let catalogueSchema = """
        CREATE TABLE catalogue (
            app_id TEXT PRIMARY KEY NOT NULL REFERENCES app(id),
            source TEXT NOT NULL,
            identifier TEXT,
            format_version TEXT NOT NULL,
            imported_at INTEGER NOT NULL,
            imported_by TEXT NOT NULL,
            storefront TEXT NOT NULL,
            currency TEXT NOT NULL,
            locale TEXT,
            time_rate INTEGER,
            compatibility_time_rates TEXT NOT NULL CHECK (json_valid(compatibility_time_rates)),
            ask_to_buy INTEGER NOT NULL,
            fail_transactions INTEGER NOT NULL,
            billing_issues INTEGER NOT NULL,
            billing_grace_period INTEGER NOT NULL,
            disable_dialogs INTEGER NOT NULL,
            enabled_errors TEXT NOT NULL CHECK (json_valid(enabled_errors)),
            app_store_app_id TEXT,
            team_id TEXT,
            last_synchronized INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE catalogue_group (
            app_id TEXT NOT NULL REFERENCES catalogue(app_id),
            id TEXT NOT NULL,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (app_id, id)
        ) WITHOUT ROWID;
        CREATE TABLE catalogue_product (
            product_id TEXT PRIMARY KEY NOT NULL REFERENCES product(id),
            app_id TEXT NOT NULL REFERENCES catalogue(app_id),
            position INTEGER NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing')),
            reference_name TEXT,
            internal_id TEXT,
            display_price TEXT NOT NULL,
            price_cents INTEGER NOT NULL CHECK (price_cents > 0),
            family_shareable INTEGER NOT NULL,
            group_id TEXT,
            group_level INTEGER CHECK (group_level >= 1),
            period TEXT,
            FOREIGN KEY (app_id, group_id) REFERENCES catalogue_group(app_id, id),
            CHECK ((type = 'auto_renewable') = (group_id IS NOT NULL AND group_level IS NOT NULL AND period IS NOT NULL))
        ) WITHOUT ROWID;
        CREATE INDEX catalogue_product_on_app ON catalogue_product(app_id, position);
        CREATE TABLE catalogue_localization (
            app_id TEXT NOT NULL REFERENCES catalogue(app_id),
            subject TEXT NOT NULL CHECK (subject IN ('product', 'group')),
            subject_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            locale TEXT NOT NULL,
            display_name TEXT NOT NULL,
            description TEXT NOT NULL,
            PRIMARY KEY (app_id, subject, subject_id, position)
        ) WITHOUT ROWID;
        CREATE TABLE catalogue_offer (
            product_id TEXT NOT NULL REFERENCES catalogue_product(product_id),
            position INTEGER NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('introductory', 'promotional', 'offer_code', 'win_back')),
            offer_id TEXT,
            reference_name TEXT,
            internal_id TEXT,
            payment_mode TEXT NOT NULL CHECK (payment_mode IN ('FREE_TRIAL', 'PAY_AS_YOU_GO', 'PAY_UP_FRONT')),
            period TEXT NOT NULL,
            period_count INTEGER NOT NULL CHECK (period_count >= 1),
            display_price TEXT,
            price_cents INTEGER CHECK (price_cents >= 0),
            eligibility TEXT NOT NULL,
            stackable INTEGER,
            eligible INTEGER,
            billing_plan_type TEXT,
            PRIMARY KEY (product_id, position)
        ) WITHOUT ROWID;
        CREATE TABLE catalogue_billing_plan (
            product_id TEXT NOT NULL REFERENCES catalogue_product(product_id),
            position INTEGER NOT NULL,
            type TEXT NOT NULL,
            display_price TEXT NOT NULL,
            commitment_display_price TEXT,
            internal_id TEXT,
            enabled INTEGER NOT NULL,
            PRIMARY KEY (product_id, position)
        ) WITHOUT ROWID;
        """

    /// Each callback attempt POSTed to a real game server keeps where it went, the reply's status and
    /// its latency (its body, cut, is in `reply`); in-process attempts leave them NULL. `storedesk serve`
    /// keeps the game server's own books apart from the platform's: the genuine callbacks it answered
    /// `success` (granted or repeated) and one grant per (app, order), which is its de-duplication. They
    /// reference no platform row, because a real platform's orders are not in this store.
    static let callbacksOverHTTPSchema = """
        ALTER TABLE server_callback ADD COLUMN url TEXT;
        ALTER TABLE server_callback ADD COLUMN http_status INTEGER;
        ALTER TABLE server_callback ADD COLUMN latency_us INTEGER;
        CREATE TABLE game_server_callback (
            id INTEGER PRIMARY KEY,
            app_id TEXT NOT NULL,
            order_id TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('granted', 'duplicate')),
            body TEXT NOT NULL,
            warnings TEXT NOT NULL,
            reply TEXT NOT NULL,
            peer TEXT NOT NULL,
            received_at INTEGER NOT NULL
        );
        CREATE INDEX game_server_callback_on_order ON game_server_callback(app_id, order_id);
        CREATE TABLE game_server_grant (
            app_id TEXT NOT NULL,
            order_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            sid TEXT NOT NULL,
            role_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('product', 'currency')),
            currency_amount INTEGER NOT NULL,
            callback_id INTEGER NOT NULL REFERENCES game_server_callback(id),
            granted_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, order_id)
        ) WITHOUT ROWID;
        """

    /// The time rate a demo drove a subscription chain at (`Subscription.timeRateMillisPerMonth`): real
    /// milliseconds per subscription month, NULL for real time, so every row already stored (imported,
    /// seeded, hand-written) keeps the real 60-day billing retry.
    static let subscriptionTimeRateSchema = """
        ALTER TABLE subscription ADD COLUMN time_rate_month_ms INTEGER CHECK (time_rate_month_ms > 0);
        """

    /// Login entries: the third-party AppIDs the integration checklist needs, every change of a game's
    /// list (who, when, old and new list, from which surface), and the one-click login simulator's state
    /// (one row: registration, settings, its clock offset; and the tokens it handed out) so separate
    /// `storedesk login onetap` invocations continue one flow.
    static let loginEntriesSchema = """
        ALTER TABLE login_entry_configuration ADD COLUMN wechat_app_id TEXT;
        ALTER TABLE login_entry_configuration ADD COLUMN qq_app_id TEXT;
        ALTER TABLE login_entry_configuration ADD COLUMN taptap_client_id TEXT;
        ALTER TABLE login_entry_configuration ADD COLUMN universal_link_domain TEXT;
        CREATE TABLE login_entry_history (
            id INTEGER PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES app(id),
            at INTEGER NOT NULL,
            actor TEXT NOT NULL,
            role TEXT NOT NULL,
            surface TEXT NOT NULL,
            old_entries TEXT,
            new_entries TEXT
        );
        CREATE INDEX login_entry_history_on_app ON login_entry_history(app_id, id);
        CREATE TABLE onetap_simulator (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            app_id TEXT,
            app_key TEXT,
            timeout_ms INTEGER NOT NULL,
            network TEXT NOT NULL,
            carrier TEXT NOT NULL,
            phone TEXT NOT NULL,
            gateway_latency_ms INTEGER NOT NULL,
            cached_number TEXT,
            clock_offset_ms INTEGER NOT NULL,
            token_serial INTEGER NOT NULL
        );
        CREATE TABLE onetap_token (
            token TEXT PRIMARY KEY NOT NULL,
            phone TEXT NOT NULL,
            issued_at INTEGER NOT NULL,
            used_at INTEGER,
            implicit INTEGER NOT NULL,
            open_id TEXT
        );
        """

    /// The payment queue's timeline: every state change, callback and grant the simulator writes has
    /// its event here, committed in the same transaction.
    static let paymentQueueSchema = """
        CREATE TABLE transaction_event (
            id INTEGER PRIMARY KEY,
            transaction_id TEXT NOT NULL,
            at INTEGER NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL
        );
        CREATE INDEX transaction_event_on_transaction ON transaction_event(transaction_id, id);
        CREATE INDEX transaction_event_on_kind ON transaction_event(kind, transaction_id);
        CREATE INDEX callback_on_verdict ON server_callback(verdict, order_id);
        """

    /// The payment queue writes about eight rows per purchase, so every index on its tables is paid
    /// for at every step. The timeline's only lookup by kind is for client crashes (the restore desk
    /// and `check`), a few rows in a thousand: a partial index on those replaces one over every event.
    /// Accepted callbacks are looked up per order, which `callback_on_order` already serves.
    static let leanQueueIndexes = """
        DROP INDEX transaction_event_on_kind;
        CREATE INDEX transaction_event_crashes ON transaction_event(transaction_id) WHERE kind = 'client_crashed';
        DROP INDEX callback_on_verdict;
        """

    /// The audit log in the order its lines were written: `id` is the rowid, one more than the largest
    /// every time (audit lines are never deleted), so it cannot tie or go back, where `at` ties within a
    /// millisecond and, in stores written before the store's clock moved with every write, went back
    /// between sessions. The action and actor filters page on `(filter, id)` instead of `(filter, at)`.
    static let auditSequenceSchema = """
        DROP INDEX audit_on_action;
        DROP INDEX audit_on_actor;
        CREATE INDEX audit_on_action_sequence ON audit_log(action, id);
        CREATE INDEX audit_on_actor_sequence ON audit_log(actor, id);
        """

    /// The Restores list's other orders under a status filter (unfiltered, `restore_on_user` and `restore_once`
    /// give them).
    static let restoreSortIndexes = """
        CREATE INDEX restore_on_status_user ON restore_request(status, user_id);
        CREATE INDEX restore_on_status_transaction ON restore_request(status, transaction_id);
        """

    /// The restore desk: one prompt per transaction, ever (a login never opens a second one, and a
    /// transaction is confirmed at most once even when two processes race), and the audit filters.
    static let restoreDeskSchema = """
        DROP INDEX restore_open_once;
        DROP INDEX restore_confirmed_once;
        CREATE UNIQUE INDEX restore_once ON restore_request(transaction_id);
        CREATE INDEX restore_on_created ON restore_request(created_at);
        CREATE INDEX audit_on_action ON audit_log(action, at);
        CREATE INDEX audit_on_actor ON audit_log(actor, at);
        """

    /// App Store Server Notifications as imported (or simulated), one row per notificationUUID: the
    /// decoded notification in Apple's JSON, and how it arrived. StoreDesk never checks Apple's
    /// signature, so `provenance` says whether the line came signed (`unverified_jws`: read without
    /// verifying) or as plain decoded JSON (`decoded_json`: nothing to verify). The `subscription` row of
    /// each chain is derived from its events by their own dates.
    static let subscriptionEventSchema = """
        CREATE TABLE subscription_event (
            notification_uuid TEXT PRIMARY KEY NOT NULL,
            original_transaction_id TEXT NOT NULL,
            notification_type TEXT NOT NULL,
            subtype TEXT,
            signed_date INTEGER NOT NULL,
            transaction_id TEXT,
            product_id TEXT,
            provenance TEXT NOT NULL CHECK (provenance IN ('decoded_json', 'unverified_jws', 'simulated')),
            payload TEXT NOT NULL CHECK (json_valid(payload)),
            source TEXT NOT NULL,
            imported_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX subscription_event_on_chain ON subscription_event(original_transaction_id, signed_date);
        CREATE INDEX subscription_on_expiry ON subscription(expires_date, original_transaction_id);
        """

    /// Secondary indexes, kept apart so the bulk generator can build them after loading rows.
    static let foundationIndexes = """
        CREATE INDEX user_on_name ON user(name);
        CREATE INDEX user_on_friendly_name ON user(friendly_name);
        CREATE INDEX user_on_phone_last4 ON user(substr(phone, -4));
        CREATE INDEX game_account_on_user ON game_account(user_id);
        CREATE INDEX game_account_on_apple_id ON game_account(apple_id);
        CREATE UNIQUE INDEX game_account_on_token ON game_account(app_account_token);
        CREATE INDEX product_on_app ON product(app_id);
        CREATE INDEX transaction_on_user ON store_transaction(user_id, purchase_date);
        CREATE INDEX transaction_on_original ON store_transaction(original_transaction_id);
        CREATE INDEX transaction_unfinished ON store_transaction(state, purchase_date) WHERE finished = 0;
        CREATE INDEX transaction_on_product ON store_transaction(product_id);
        CREATE UNIQUE INDEX order_on_transaction ON payment_order(transaction_id);
        CREATE INDEX callback_on_order ON server_callback(order_id);
        CREATE UNIQUE INDEX grant_on_order ON item_grant(order_id);
        CREATE INDEX grant_on_user ON item_grant(user_id);
        CREATE INDEX subscription_on_user ON subscription(user_id);
        CREATE INDEX subscription_on_state ON subscription(state, expires_date);
        CREATE INDEX restore_on_status ON restore_request(status, created_at);
        CREATE INDEX restore_on_user ON restore_request(user_id);
        CREATE UNIQUE INDEX restore_open_once ON restore_request(transaction_id) WHERE status = 'open';
        CREATE UNIQUE INDEX restore_confirmed_once ON restore_request(transaction_id) WHERE status = 'confirmed';
        CREATE INDEX audit_on_at ON audit_log(at);
        """

    /// The number of users, kept in `store_meta` so the console never counts a million rows to show it.
    static let userCountTriggers = """
        CREATE TRIGGER user_count_insert AFTER INSERT ON user BEGIN
          UPDATE store_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'user_count';
        END;
        CREATE TRIGGER user_count_delete AFTER DELETE ON user BEGIN
          UPDATE store_meta SET value = CAST(value AS INTEGER) - 1 WHERE key = 'user_count';
        END;
        """

    /// Substring search over ids and names: a trigram full-text index kept in step with `user` by triggers.
    static let userSearchTriggers = """
        CREATE TRIGGER user_search_insert AFTER INSERT ON user BEGIN
          INSERT INTO user_search(rowid, id, name, friendly_name) VALUES (new.rowid, new.id, new.name, new.friendly_name);
        END;
        CREATE TRIGGER user_search_delete AFTER DELETE ON user BEGIN
          INSERT INTO user_search(user_search, rowid, id, name, friendly_name) VALUES ('delete', old.rowid, old.id, old.name, old.friendly_name);
        END;
        CREATE TRIGGER user_search_update AFTER UPDATE OF id, name, friendly_name ON user BEGIN
          INSERT INTO user_search(user_search, rowid, id, name, friendly_name) VALUES ('delete', old.rowid, old.id, old.name, old.friendly_name);
          INSERT INTO user_search(rowid, id, name, friendly_name) VALUES (new.rowid, new.id, new.name, new.friendly_name);
        END;
        """

    static let foundationSchema = """
        CREATE TABLE store_meta (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        );
        CREATE TABLE app (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            app_key TEXT NOT NULL,
            currency_per_yuan INTEGER NOT NULL CHECK (currency_per_yuan > 0),
            restore_ownership TEXT NOT NULL CHECK (restore_ownership IN ('transfer', 'keep', 'share')),
            grace_period_days INTEGER NOT NULL CHECK (grace_period_days IN (0, 3, 16, 28))
        );
        CREATE TABLE user (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            friendly_name TEXT NOT NULL DEFAULT '',
            id_card TEXT NOT NULL DEFAULT '' CHECK (id_card = '' OR id_card GLOB '*[*]*'),
            phone TEXT NOT NULL DEFAULT '',
            site INTEGER NOT NULL CHECK (site IN (0, 1, 3, 8, 9, 10)),
            adult_type INTEGER NOT NULL CHECK (adult_type BETWEEN 0 AND 4),
            fcm INTEGER NOT NULL,
            authoriz_state INTEGER NOT NULL,
            safety INTEGER NOT NULL,
            client_id TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE game_account (
            id INTEGER PRIMARY KEY,
            apple_id TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES user(id),
            app_id TEXT NOT NULL REFERENCES app(id),
            sid TEXT NOT NULL,
            role_id TEXT NOT NULL,
            role_name TEXT NOT NULL,
            app_account_token TEXT NOT NULL
        );
        CREATE TABLE product (
            id TEXT PRIMARY KEY NOT NULL,
            app_id TEXT NOT NULL REFERENCES app(id),
            name TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing')),
            price_cents INTEGER NOT NULL CHECK (price_cents > 0),
            currency TEXT NOT NULL,
            subscription_group TEXT,
            period TEXT,
            grants_currency INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE store_transaction (
            id TEXT PRIMARY KEY NOT NULL,
            original_transaction_id TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES user(id),
            app_id TEXT NOT NULL REFERENCES app(id),
            product_id TEXT NOT NULL REFERENCES product(id),
            quantity INTEGER NOT NULL CHECK (quantity > 0),
            state TEXT NOT NULL CHECK (state IN ('purchasing', 'purchased', 'failed', 'restored', 'deferred')),
            failure_reason TEXT,
            environment TEXT NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
            sid TEXT NOT NULL,
            role_id TEXT NOT NULL,
            app_order_id TEXT NOT NULL,
            ext TEXT NOT NULL CHECK (length(ext) <= 512),
            purchase_date INTEGER NOT NULL,
            expires_date INTEGER,
            revocation_date INTEGER,
            revocation_reason TEXT,
            finished INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE payment_order (
            order_id TEXT PRIMARY KEY NOT NULL,
            transaction_id TEXT NOT NULL REFERENCES store_transaction(id),
            app_id TEXT NOT NULL REFERENCES app(id),
            user_id TEXT NOT NULL REFERENCES user(id),
            product_id TEXT NOT NULL REFERENCES product(id),
            payment TEXT NOT NULL,
            sub_payment TEXT NOT NULL,
            amount_cents INTEGER NOT NULL,
            sid TEXT NOT NULL,
            role_id TEXT NOT NULL,
            app_order_id TEXT NOT NULL,
            ext TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'granted'))
        ) WITHOUT ROWID;
        CREATE TABLE server_callback (
            id INTEGER PRIMARY KEY,
            order_id TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            body TEXT NOT NULL,
            sign_expected TEXT NOT NULL,
            sign_received TEXT NOT NULL,
            verdict TEXT NOT NULL,
            reason TEXT NOT NULL,
            reply TEXT NOT NULL,
            received_at INTEGER NOT NULL
        );
        CREATE TABLE item_grant (
            id INTEGER PRIMARY KEY,
            order_id TEXT NOT NULL REFERENCES payment_order(order_id),
            user_id TEXT NOT NULL REFERENCES user(id),
            sid TEXT NOT NULL,
            role_id TEXT NOT NULL,
            product_id TEXT NOT NULL REFERENCES product(id),
            quantity INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('product', 'currency')),
            currency_amount INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('purchase', 'restore')),
            granted_at INTEGER NOT NULL
        );
        CREATE TABLE subscription (
            original_transaction_id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL REFERENCES user(id),
            app_id TEXT NOT NULL REFERENCES app(id),
            product_id TEXT NOT NULL REFERENCES product(id),
            group_id TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('active', 'grace_period', 'billing_retry', 'expired', 'revoked')),
            auto_renew INTEGER NOT NULL,
            original_purchase_date INTEGER NOT NULL,
            purchase_date INTEGER NOT NULL,
            expires_date INTEGER NOT NULL,
            grace_period_expires_date INTEGER,
            revocation_date INTEGER,
            revocation_reason TEXT,
            expiration_intent TEXT,
            offer_type TEXT,
            offer_id TEXT
        ) WITHOUT ROWID;
        CREATE TABLE restore_request (
            id INTEGER PRIMARY KEY,
            transaction_id TEXT NOT NULL REFERENCES store_transaction(id),
            user_id TEXT NOT NULL REFERENCES user(id),
            product_id TEXT NOT NULL REFERENCES product(id),
            quantity INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'confirmed', 'declined')),
            created_at INTEGER NOT NULL,
            resolved_at INTEGER,
            resolved_by TEXT,
            resolved_role TEXT,
            target_user_id TEXT,
            target_sid TEXT,
            target_role_id TEXT,
            reason TEXT
        );
        CREATE TABLE login_entry_configuration (
            app_id TEXT PRIMARY KEY NOT NULL REFERENCES app(id),
            entries TEXT,
            updated_at INTEGER NOT NULL,
            updated_by TEXT NOT NULL
        );
        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY,
            at INTEGER NOT NULL,
            actor TEXT NOT NULL,
            role TEXT NOT NULL,
            action TEXT NOT NULL,
            subject TEXT NOT NULL,
            detail TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE user_search USING fts5(
            id, name, friendly_name, content = 'user', content_rowid = 'rowid', tokenize = 'trigram'
        );
        INSERT INTO store_meta (key, value) VALUES ('user_count', '0');
        """ + foundationIndexes + userSearchTriggers + userCountTriggers
}
