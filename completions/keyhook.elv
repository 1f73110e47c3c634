
use builtin;
use str;

set edit:completion:arg-completer[keyhook] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'keyhook'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'keyhook'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand keys 'Create, list, show, delete, rotate and verify API keys'
            cand key 'Create, list, show, delete, rotate and verify API keys'
            cand webhooks 'Create, list, test, enable, disable and delete webhook subscriptions'
            cand webhook 'Create, list, test, enable, disable and delete webhook subscriptions'
            cand events 'Emit events to subscribed webhooks'
            cand event-types 'Add, list, show, update, deprecate and delete the event types webhooks subscribe to'
            cand portal 'Mint, revoke and list links to the developer portal that serve shows your customers'
            cand deliver 'Send queued webhook deliveries (with --once: what is due now, then exit)'
            cand listen 'Receive real, signed deliveries here while this runs (an ephemeral webhook), or forward them to a local URL'
            cand db 'Copy the whole database into another, empty one'
            cand audit 'Show the audit log: who changed which key or webhook, newest first'
            cand backup 'Back up the SQLite database into FILE while others keep writing'
            cand serve 'Serve the /api/v1 HTTP JSON API (and deliver webhooks)'
            cand prune 'Delete events, finished deliveries and attempts older than a duration, now'
            cand completions 'Print the completion script for a shell'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;keys'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Create a key and print it; the plaintext is shown this once and never stored'
            cand list 'List the user''s keys (never the plaintext)'
            cand show 'Show one key'
            cand delete 'Delete a key; requests made with it are refused from then on'
            cand rotate 'Replace a key with a new one of the same name, permission and scope'
            cand prune 'Delete the user''s keys that expired more than DUR ago (default 30 days)'
            cand scan 'Find keys in files, directories or standard input; exit 4 if an active one is found'
            cand verify 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;key'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Create a key and print it; the plaintext is shown this once and never stored'
            cand list 'List the user''s keys (never the plaintext)'
            cand show 'Show one key'
            cand delete 'Delete a key; requests made with it are refused from then on'
            cand rotate 'Replace a key with a new one of the same name, permission and scope'
            cand prune 'Delete the user''s keys that expired more than DUR ago (default 30 days)'
            cand scan 'Find keys in files, directories or standard input; exit 4 if an active one is found'
            cand verify 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;keys;create'= {
            cand -n 'A label for the key (1 to 100 characters)'
            cand --name 'A label for the key (1 to 100 characters)'
            cand --permission 'What the key may do'
            cand --profile 'Limit the key to this profile (repeat for several); without it the key has full access'
            cand --expires-at 'Expiry time, RFC 3339 with an offset (2030-01-01T00:00:00Z)'
            cand --expires-in 'Expiry as a duration from now (90m, 12h, 30d, 2w)'
            cand --rate-limit 'This key''s own rate limit (N/s or N/min, burst N), instead of serve --rate-limit''s'
            cand --max-uses 'How many requests the key may make; then it is refused (403 KEY_EXHAUSTED)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -q 'Print only the plaintext key'
            cand --quiet 'Print only the plaintext key'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;create'= {
            cand -n 'A label for the key (1 to 100 characters)'
            cand --name 'A label for the key (1 to 100 characters)'
            cand --permission 'What the key may do'
            cand --profile 'Limit the key to this profile (repeat for several); without it the key has full access'
            cand --expires-at 'Expiry time, RFC 3339 with an offset (2030-01-01T00:00:00Z)'
            cand --expires-in 'Expiry as a duration from now (90m, 12h, 30d, 2w)'
            cand --rate-limit 'This key''s own rate limit (N/s or N/min, burst N), instead of serve --rate-limit''s'
            cand --max-uses 'How many requests the key may make; then it is refused (403 KEY_EXHAUSTED)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -q 'Print only the plaintext key'
            cand --quiet 'Print only the plaintext key'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;list'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --all-users 'List the keys of every user'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;list'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --all-users 'List the keys of every user'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;show'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;show'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;delete'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;delete'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;rotate'= {
            cand --grace 'Keep the old key working this long (e.g. 1h, 7d) instead of deleting it at once (0s: it expires now and stays listed until deleted or pruned)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -q 'Print only the new plaintext key'
            cand --quiet 'Print only the new plaintext key'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;rotate'= {
            cand --grace 'Keep the old key working this long (e.g. 1h, 7d) instead of deleting it at once (0s: it expires now and stays listed until deleted or pruned)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -q 'Print only the new plaintext key'
            cand --quiet 'Print only the new plaintext key'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;prune'= {
            cand --expired-for 'How long ago a key must have expired to be deleted (e.g. 7d, 12h; 0s: every expired key)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;prune'= {
            cand --expired-for 'How long ago a key must have expired to be deleted (e.g. 7d, 12h; 0s: every expired key)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;scan'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --revoke 'Delete every active key found (each in its own transaction, audited as leaked)'
            cand -y 'Do not ask before revoking (required without a terminal)'
            cand --yes 'Do not ask before revoking (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;scan'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --revoke 'Delete every active key found (each in its own transaction, audited as leaked)'
            cand -y 'Do not ask before revoking (required without a terminal)'
            cand --yes 'Do not ask before revoking (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;verify'= {
            cand --method 'The HTTP method the key would be used for'
            cand --profile 'A profile the key would touch'
            cand --uri 'The URI (path and query) of a request to the guarded service, decided as /api/v1/auth decides it (docs/guarding.md)'
            cand --auth-profile 'Where --uri names a profile, as serve --auth-profile (repeat for several)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;key;verify'= {
            cand --method 'The HTTP method the key would be used for'
            cand --profile 'A profile the key would touch'
            cand --uri 'The URI (path and query) of a request to the guarded service, decided as /api/v1/auth decides it (docs/guarding.md)'
            cand --auth-profile 'Where --uri names a profile, as serve --auth-profile (repeat for several)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;keys;help'= {
            cand create 'Create a key and print it; the plaintext is shown this once and never stored'
            cand list 'List the user''s keys (never the plaintext)'
            cand show 'Show one key'
            cand delete 'Delete a key; requests made with it are refused from then on'
            cand rotate 'Replace a key with a new one of the same name, permission and scope'
            cand prune 'Delete the user''s keys that expired more than DUR ago (default 30 days)'
            cand scan 'Find keys in files, directories or standard input; exit 4 if an active one is found'
            cand verify 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;keys;help;create'= {
        }
        &'keyhook;keys;help;list'= {
        }
        &'keyhook;keys;help;show'= {
        }
        &'keyhook;keys;help;delete'= {
        }
        &'keyhook;keys;help;rotate'= {
        }
        &'keyhook;keys;help;prune'= {
        }
        &'keyhook;keys;help;scan'= {
        }
        &'keyhook;keys;help;verify'= {
        }
        &'keyhook;keys;help;help'= {
        }
        &'keyhook;key;help'= {
            cand create 'Create a key and print it; the plaintext is shown this once and never stored'
            cand list 'List the user''s keys (never the plaintext)'
            cand show 'Show one key'
            cand delete 'Delete a key; requests made with it are refused from then on'
            cand rotate 'Replace a key with a new one of the same name, permission and scope'
            cand prune 'Delete the user''s keys that expired more than DUR ago (default 30 days)'
            cand scan 'Find keys in files, directories or standard input; exit 4 if an active one is found'
            cand verify 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;key;help;create'= {
        }
        &'keyhook;key;help;list'= {
        }
        &'keyhook;key;help;show'= {
        }
        &'keyhook;key;help;delete'= {
        }
        &'keyhook;key;help;rotate'= {
        }
        &'keyhook;key;help;prune'= {
        }
        &'keyhook;key;help;scan'= {
        }
        &'keyhook;key;help;verify'= {
        }
        &'keyhook;key;help;help'= {
        }
        &'keyhook;webhooks'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Subscribe a URL to events (at most 10 webhooks per user)'
            cand update 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
            cand list 'List the user''s webhooks'
            cand show 'Show one webhook, its secret included'
            cand test 'Send a webhook.test delivery now and report what the endpoint answered'
            cand enable 'Re-enable a webhook and reset its failure count'
            cand disable 'Stop event deliveries to a webhook'
            cand delete 'Delete a webhook and its delivery log'
            cand rotate-secret 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
            cand deliveries 'Show the newest delivery attempts to a webhook'
            cand replay 'Queue past events again for a webhook (after its endpoint was down)'
            cand filter-test 'Try a filter on an event before saving it: prints true or false, or why it fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;webhook'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Subscribe a URL to events (at most 10 webhooks per user)'
            cand update 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
            cand list 'List the user''s webhooks'
            cand show 'Show one webhook, its secret included'
            cand test 'Send a webhook.test delivery now and report what the endpoint answered'
            cand enable 'Re-enable a webhook and reset its failure count'
            cand disable 'Stop event deliveries to a webhook'
            cand delete 'Delete a webhook and its delivery log'
            cand rotate-secret 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
            cand deliveries 'Show the newest delivery attempts to a webhook'
            cand replay 'Queue past events again for a webhook (after its endpoint was down)'
            cand filter-test 'Try a filter on an event before saving it: prints true or false, or why it fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;webhooks;create'= {
            cand --url 'The http(s) URL that receives the deliveries'
            cand --event 'An event to subscribe to (repeat for several), e.g. post.published'
            cand --profile 'Deliver only events of this profile (repeat for several); without it the webhook gets the events of all profiles, and user-wide events'
            cand --filter 'Deliver only the events for which this CEL expression over event, profileId and data is true, e.g. ''data.tags.exists(t, t == "breaking")'''
            cand --retry-schedule 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s'
            cand --timeout 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout'
            cand --rate 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance'
            cand --signing 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both'
            cand --header 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --ordered 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;create'= {
            cand --url 'The http(s) URL that receives the deliveries'
            cand --event 'An event to subscribe to (repeat for several), e.g. post.published'
            cand --profile 'Deliver only events of this profile (repeat for several); without it the webhook gets the events of all profiles, and user-wide events'
            cand --filter 'Deliver only the events for which this CEL expression over event, profileId and data is true, e.g. ''data.tags.exists(t, t == "breaking")'''
            cand --retry-schedule 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s'
            cand --timeout 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout'
            cand --rate 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance'
            cand --signing 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both'
            cand --header 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --ordered 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;update'= {
            cand --url 'The new http(s) URL'
            cand --event 'The events to subscribe to, replacing the current ones (repeat for several)'
            cand --profile 'Deliver only events of these profiles, replacing the current scope (repeat for several)'
            cand --filter 'Deliver only the events for which this CEL expression is true, replacing the current filter'
            cand --retry-schedule 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s'
            cand --timeout 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout'
            cand --rate 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance'
            cand --signing 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both'
            cand --header 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list'
            cand --no-header 'Stop sending this static header (repeat for several)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --all-profiles 'Deliver the events of all profiles, and user-wide events'
            cand --no-filter 'Remove the filter: deliver every subscribed event'
            cand --ordered 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
            cand --no-retry-schedule 'Go back to serve''s retry schedule'
            cand --no-timeout 'Go back to serve''s delivery timeout'
            cand --no-rate 'No rate limit: as fast as the workers go'
            cand --no-ordered 'Deliver as fast as the workers go, several at a time, in no particular order'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;update'= {
            cand --url 'The new http(s) URL'
            cand --event 'The events to subscribe to, replacing the current ones (repeat for several)'
            cand --profile 'Deliver only events of these profiles, replacing the current scope (repeat for several)'
            cand --filter 'Deliver only the events for which this CEL expression is true, replacing the current filter'
            cand --retry-schedule 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s'
            cand --timeout 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout'
            cand --rate 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance'
            cand --signing 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both'
            cand --header 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list'
            cand --no-header 'Stop sending this static header (repeat for several)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --all-profiles 'Deliver the events of all profiles, and user-wide events'
            cand --no-filter 'Remove the filter: deliver every subscribed event'
            cand --ordered 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
            cand --no-retry-schedule 'Go back to serve''s retry schedule'
            cand --no-timeout 'Go back to serve''s delivery timeout'
            cand --no-rate 'No rate limit: as fast as the workers go'
            cand --no-ordered 'Deliver as fast as the workers go, several at a time, in no particular order'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;list'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;list'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;show'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;show'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;test'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;test'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;enable'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;enable'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;disable'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;disable'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;delete'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;delete'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;rotate-secret'= {
            cand --grace 'Keep signing with the old secret too for this long (0 to 7d; 0 drops it at once)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -q 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)'
            cand --quiet 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;rotate-secret'= {
            cand --grace 'Keep signing with the old secret too for this long (0 to 7d; 0 drops it at once)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -q 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)'
            cand --quiet 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;deliveries'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -f 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM'
            cand --follow 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;deliveries'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand -f 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM'
            cand --follow 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;replay'= {
            cand --since 'Replay events since this time: RFC 3339, or a duration ago such as 2h [default: 24h]'
            cand --event 'Replay only this event (its id, evt_...)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --failed-only 'Only events whose last delivery to this webhook failed; one waiting for its next retry is sent now (not queued twice)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;replay'= {
            cand --since 'Replay events since this time: RFC 3339, or a duration ago such as 2h [default: 24h]'
            cand --event 'Replay only this event (its id, evt_...)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --failed-only 'Only events whose last delivery to this webhook failed; one waiting for its next retry is sent now (not queued twice)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;filter-test'= {
            cand --event 'The event type: the filter''s `event`, and without --data its catalog example is the data'
            cand --data 'The event''s data instead of the example: a JSON object, @FILE to read it from a file, or - for stdin'
            cand --profile 'The event''s profile, the filter''s `profileId` (without it: null)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhook;filter-test'= {
            cand --event 'The event type: the filter''s `event`, and without --data its catalog example is the data'
            cand --data 'The event''s data instead of the example: a JSON object, @FILE to read it from a file, or - for stdin'
            cand --profile 'The event''s profile, the filter''s `profileId` (without it: null)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;webhooks;help'= {
            cand create 'Subscribe a URL to events (at most 10 webhooks per user)'
            cand update 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
            cand list 'List the user''s webhooks'
            cand show 'Show one webhook, its secret included'
            cand test 'Send a webhook.test delivery now and report what the endpoint answered'
            cand enable 'Re-enable a webhook and reset its failure count'
            cand disable 'Stop event deliveries to a webhook'
            cand delete 'Delete a webhook and its delivery log'
            cand rotate-secret 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
            cand deliveries 'Show the newest delivery attempts to a webhook'
            cand replay 'Queue past events again for a webhook (after its endpoint was down)'
            cand filter-test 'Try a filter on an event before saving it: prints true or false, or why it fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;webhooks;help;create'= {
        }
        &'keyhook;webhooks;help;update'= {
        }
        &'keyhook;webhooks;help;list'= {
        }
        &'keyhook;webhooks;help;show'= {
        }
        &'keyhook;webhooks;help;test'= {
        }
        &'keyhook;webhooks;help;enable'= {
        }
        &'keyhook;webhooks;help;disable'= {
        }
        &'keyhook;webhooks;help;delete'= {
        }
        &'keyhook;webhooks;help;rotate-secret'= {
        }
        &'keyhook;webhooks;help;deliveries'= {
        }
        &'keyhook;webhooks;help;replay'= {
        }
        &'keyhook;webhooks;help;filter-test'= {
        }
        &'keyhook;webhooks;help;help'= {
        }
        &'keyhook;webhook;help'= {
            cand create 'Subscribe a URL to events (at most 10 webhooks per user)'
            cand update 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
            cand list 'List the user''s webhooks'
            cand show 'Show one webhook, its secret included'
            cand test 'Send a webhook.test delivery now and report what the endpoint answered'
            cand enable 'Re-enable a webhook and reset its failure count'
            cand disable 'Stop event deliveries to a webhook'
            cand delete 'Delete a webhook and its delivery log'
            cand rotate-secret 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
            cand deliveries 'Show the newest delivery attempts to a webhook'
            cand replay 'Queue past events again for a webhook (after its endpoint was down)'
            cand filter-test 'Try a filter on an event before saving it: prints true or false, or why it fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;webhook;help;create'= {
        }
        &'keyhook;webhook;help;update'= {
        }
        &'keyhook;webhook;help;list'= {
        }
        &'keyhook;webhook;help;show'= {
        }
        &'keyhook;webhook;help;test'= {
        }
        &'keyhook;webhook;help;enable'= {
        }
        &'keyhook;webhook;help;disable'= {
        }
        &'keyhook;webhook;help;delete'= {
        }
        &'keyhook;webhook;help;rotate-secret'= {
        }
        &'keyhook;webhook;help;deliveries'= {
        }
        &'keyhook;webhook;help;replay'= {
        }
        &'keyhook;webhook;help;filter-test'= {
        }
        &'keyhook;webhook;help;help'= {
        }
        &'keyhook;events'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand emit 'Queue an event for every active webhook of the user subscribed to it'
            cand trigger 'Emit the event type''s example (see event-types), with changes, to try a receiver'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;events;emit'= {
            cand --data 'The event''s data: a JSON object, @FILE to read it from a file, or - for stdin'
            cand --profile 'The profile the event is about: only webhooks whose scope covers it get it; without it the event is user-wide and goes only to webhooks of all profiles'
            cand --idempotency-key 'A key for this event (1-255 printable ASCII characters): a repeat with the same key within 24 hours queues nothing and prints the first event'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;events;trigger'= {
            cand --profile 'The profile the event is about (as events emit --profile)'
            cand --set 'Change one field of the example (repeatable)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;events;help'= {
            cand emit 'Queue an event for every active webhook of the user subscribed to it'
            cand trigger 'Emit the event type''s example (see event-types), with changes, to try a receiver'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;events;help;emit'= {
        }
        &'keyhook;events;help;trigger'= {
        }
        &'keyhook;events;help;help'= {
        }
        &'keyhook;event-types'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand add 'Add an event type to the catalog'
            cand list 'List the event catalog'
            cand show 'Show an event type with its schema and example'
            cand update 'Change an event type''s description, schema, example or profile rule'
            cand deprecate 'Deprecate an event type: no new subscriptions, existing ones keep receiving'
            cand delete 'Delete an event type nothing subscribes to and nothing is pending for'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;event-types;add'= {
            cand --description 'What the event means (at most 500 characters)'
            cand --schema 'A JSON Schema (draft 2020-12) the events'' data must match: a file, or - for stdin'
            cand --example 'An example of the events'' data (a JSON object), for `events trigger`: a file, or -'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --profile-required 'Events of this type must name a profile (--profile, profileId)'
            cand --user-wide 'Events of this type must not name a profile'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;event-types;list'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --names 'Print only the names, one per line (what shell completion reads)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;event-types;show'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;event-types;update'= {
            cand --description 'What the event means (at most 500 characters)'
            cand --schema 'A JSON Schema (draft 2020-12) the events'' data must match: a file, or - for stdin'
            cand --example 'An example of the events'' data (a JSON object), for `events trigger`: a file, or -'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --profile-required 'Events of this type must name a profile (--profile, profileId)'
            cand --user-wide 'Events of this type must not name a profile'
            cand --profile-optional 'Events of this type may name a profile or not (the default)'
            cand --clear-description 'Remove the description'
            cand --clear-schema 'Remove the schema: data is no longer checked'
            cand --clear-example 'Remove the example'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;event-types;deprecate'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;event-types;delete'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;event-types;help'= {
            cand add 'Add an event type to the catalog'
            cand list 'List the event catalog'
            cand show 'Show an event type with its schema and example'
            cand update 'Change an event type''s description, schema, example or profile rule'
            cand deprecate 'Deprecate an event type: no new subscriptions, existing ones keep receiving'
            cand delete 'Delete an event type nothing subscribes to and nothing is pending for'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;event-types;help;add'= {
        }
        &'keyhook;event-types;help;list'= {
        }
        &'keyhook;event-types;help;show'= {
        }
        &'keyhook;event-types;help;update'= {
        }
        &'keyhook;event-types;help;deprecate'= {
        }
        &'keyhook;event-types;help;delete'= {
        }
        &'keyhook;event-types;help;help'= {
        }
        &'keyhook;portal'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand link 'Mint a single-use link to the developer portal for --user (printed once: a secret)'
            cand revoke 'Revoke a link (and end its session), or every link of --user'
            cand list 'List --user''s live links (not yet opened) and sessions'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;portal;link'= {
            cand --profile 'Limit the link to this profile (repeat for several); without it: all profiles'
            cand --ttl 'How long the link may wait to be opened (at most 24h)'
            cand --public-url 'Where serve is reached; the link is {public-url}/portal#<token>'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --read-only 'The portal shows everything and changes nothing'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;portal;revoke'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --all 'Every link of --user'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;portal;list'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;portal;help'= {
            cand link 'Mint a single-use link to the developer portal for --user (printed once: a secret)'
            cand revoke 'Revoke a link (and end its session), or every link of --user'
            cand list 'List --user''s live links (not yet opened) and sessions'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;portal;help;link'= {
        }
        &'keyhook;portal;help;revoke'= {
        }
        &'keyhook;portal;help;list'= {
        }
        &'keyhook;portal;help;help'= {
        }
        &'keyhook;deliver'= {
            cand --retry-schedule 'Delays before each retry of a failed delivery, comma-separated'
            cand --delivery-workers 'Deliveries sent at once'
            cand --retention 'Delete events, finished deliveries and attempts older than this (at least 1s), in small batches; pending deliveries and their events are kept'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --once 'Send what is due now, then exit (for cron) instead of waiting for more'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;listen'= {
            cand --forward-to 'Send each delivery here, with its original headers and body; the answer is the delivery''s (a 500 is retried, a 410 disables). Loopback and private addresses are allowed; {event} in the path is the event''s name. Without it, deliveries come to a receiver of this process on a loopback port, which checks their signatures'
            cand --event 'An event to subscribe to (repeat for several); without it, every event'
            cand --profile 'Deliver only events of this profile (repeat for several); without it the events of all profiles, and user-wide events'
            cand --filter 'Deliver only events for which this CEL expression over event, profileId and data is true (the webhook''s filter, as in `webhooks create --filter`)'
            cand --retry-schedule 'Delays before each retry of a failed delivery, comma-separated'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;db'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand copy 'Copy everything in the --db database into an empty database'
            cand rekey 'Encrypt the webhook secrets at rest under a new secrets key'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;db;copy'= {
            cand --to 'The database to copy into, named like --db; it must be empty (a missing file is created)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;db;rekey'= {
            cand --new-key 'The new key (base64 of 32 bytes) from this file, or - for standard input; without it a key is generated (only with the key file)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;db;help'= {
            cand copy 'Copy everything in the --db database into an empty database'
            cand rekey 'Encrypt the webhook secrets at rest under a new secrets key'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;db;help;copy'= {
        }
        &'keyhook;db;help;rekey'= {
        }
        &'keyhook;db;help;help'= {
        }
        &'keyhook;audit'= {
            cand --since 'Only entries at or after TS (RFC 3339) or this long ago (90m, 7d)'
            cand --limit 'At most N entries (1 to 1000)'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --all-users 'The entries of every user'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;backup'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --force 'Replace FILE if it exists'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;serve'= {
            cand --bind 'Address to listen on (port 0 picks a free port; the address is printed on stderr)'
            cand --threads 'Requests handled at once (each connection has its own thread; more wait their turn)'
            cand --read-timeout 'Disconnect a client that sends nothing for this long (between requests or within one)'
            cand --header-timeout 'Disconnect a client whose request head (request line and headers) takes longer than this (from connecting for the first request, from its first byte for later ones), or whose request body takes longer than this after the head'
            cand --max-connections 'Connections served at once; a connection over the limit is answered 503 and closed'
            cand --max-connections-per-address 'Of those, connections served at once from one client address (an IPv6 address counts by its /64 prefix); one more from it is answered 503 and closed, so that one client cannot take all of --max-connections. Behind a proxy every client has the proxy''s address: raise it to --max-connections there'
            cand --rate-limit 'Requests per API key, N/s or N/min (burst N), counted by this instance; failed authentications are limited per client address at the same rate. Off when not given'
            cand --auth-profile 'Where the URIs that /api/v1/auth is asked about name a profile: a path template with {profile} as one whole segment, matched as a prefix (e.g. /profiles/{profile}/); repeat for several (docs/guarding.md)'
            cand --trusted-proxy 'A reverse proxy''s address or network (e.g. 127.0.0.1/32); only from such peers are X-Forwarded-For / X-Real-IP read as the client''s address (failed-authentication limit); repeat for several. None by default'
            cand --public-url 'Where this server is reached from outside (https://keys.example.com): portal links point there, and the portal''s cookie is Secure when it is https. Default: http:// and the bound address'
            cand --portal-embed-origin 'An https origin allowed to show the portal in a frame (repeat for several); the portal''s cookie is then SameSite=None; Secure; Partitioned. Needs an https --public-url'
            cand --log-format 'How log lines are written on stderr: text, or one JSON object per line (the filter is KEYHOOK_LOG, default info)'
            cand --retry-schedule 'Delays before each retry of a failed delivery, comma-separated'
            cand --delivery-workers 'Deliveries sent at once'
            cand --retention 'Delete events, finished deliveries and attempts older than this (at least 1s), in small batches; pending deliveries and their events are kept'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --portal-allow-private-targets 'Let the portal point webhooks at private and loopback addresses (local development and tests only; --allow-private-targets does not reach the portal)'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;prune'= {
            cand --older-than 'Delete events, finished deliveries and attempts older than this (0s: everything finished until now); pending deliveries and their events are kept'
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;completions'= {
            cand --db 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL'
            cand --user 'The user that owns what is created and listed'
            cand --color 'When tables use color (NO_COLOR turns auto off)'
            cand --delivery-timeout 'How long one webhook delivery may take before it counts as failed'
            cand --json 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})'
            cand --allow-private-targets 'Allow webhook deliveries to loopback, private and link-local addresses'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'keyhook;help'= {
            cand keys 'Create, list, show, delete, rotate and verify API keys'
            cand webhooks 'Create, list, test, enable, disable and delete webhook subscriptions'
            cand events 'Emit events to subscribed webhooks'
            cand event-types 'Add, list, show, update, deprecate and delete the event types webhooks subscribe to'
            cand portal 'Mint, revoke and list links to the developer portal that serve shows your customers'
            cand deliver 'Send queued webhook deliveries (with --once: what is due now, then exit)'
            cand listen 'Receive real, signed deliveries here while this runs (an ephemeral webhook), or forward them to a local URL'
            cand db 'Copy the whole database into another, empty one'
            cand audit 'Show the audit log: who changed which key or webhook, newest first'
            cand backup 'Back up the SQLite database into FILE while others keep writing'
            cand serve 'Serve the /api/v1 HTTP JSON API (and deliver webhooks)'
            cand prune 'Delete events, finished deliveries and attempts older than a duration, now'
            cand completions 'Print the completion script for a shell'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'keyhook;help;keys'= {
            cand create 'Create a key and print it; the plaintext is shown this once and never stored'
            cand list 'List the user''s keys (never the plaintext)'
            cand show 'Show one key'
            cand delete 'Delete a key; requests made with it are refused from then on'
            cand rotate 'Replace a key with a new one of the same name, permission and scope'
            cand prune 'Delete the user''s keys that expired more than DUR ago (default 30 days)'
            cand scan 'Find keys in files, directories or standard input; exit 4 if an active one is found'
            cand verify 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
        }
        &'keyhook;help;keys;create'= {
        }
        &'keyhook;help;keys;list'= {
        }
        &'keyhook;help;keys;show'= {
        }
        &'keyhook;help;keys;delete'= {
        }
        &'keyhook;help;keys;rotate'= {
        }
        &'keyhook;help;keys;prune'= {
        }
        &'keyhook;help;keys;scan'= {
        }
        &'keyhook;help;keys;verify'= {
        }
        &'keyhook;help;webhooks'= {
            cand create 'Subscribe a URL to events (at most 10 webhooks per user)'
            cand update 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
            cand list 'List the user''s webhooks'
            cand show 'Show one webhook, its secret included'
            cand test 'Send a webhook.test delivery now and report what the endpoint answered'
            cand enable 'Re-enable a webhook and reset its failure count'
            cand disable 'Stop event deliveries to a webhook'
            cand delete 'Delete a webhook and its delivery log'
            cand rotate-secret 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
            cand deliveries 'Show the newest delivery attempts to a webhook'
            cand replay 'Queue past events again for a webhook (after its endpoint was down)'
            cand filter-test 'Try a filter on an event before saving it: prints true or false, or why it fails'
        }
        &'keyhook;help;webhooks;create'= {
        }
        &'keyhook;help;webhooks;update'= {
        }
        &'keyhook;help;webhooks;list'= {
        }
        &'keyhook;help;webhooks;show'= {
        }
        &'keyhook;help;webhooks;test'= {
        }
        &'keyhook;help;webhooks;enable'= {
        }
        &'keyhook;help;webhooks;disable'= {
        }
        &'keyhook;help;webhooks;delete'= {
        }
        &'keyhook;help;webhooks;rotate-secret'= {
        }
        &'keyhook;help;webhooks;deliveries'= {
        }
        &'keyhook;help;webhooks;replay'= {
        }
        &'keyhook;help;webhooks;filter-test'= {
        }
        &'keyhook;help;events'= {
            cand emit 'Queue an event for every active webhook of the user subscribed to it'
            cand trigger 'Emit the event type''s example (see event-types), with changes, to try a receiver'
        }
        &'keyhook;help;events;emit'= {
        }
        &'keyhook;help;events;trigger'= {
        }
        &'keyhook;help;event-types'= {
            cand add 'Add an event type to the catalog'
            cand list 'List the event catalog'
            cand show 'Show an event type with its schema and example'
            cand update 'Change an event type''s description, schema, example or profile rule'
            cand deprecate 'Deprecate an event type: no new subscriptions, existing ones keep receiving'
            cand delete 'Delete an event type nothing subscribes to and nothing is pending for'
        }
        &'keyhook;help;event-types;add'= {
        }
        &'keyhook;help;event-types;list'= {
        }
        &'keyhook;help;event-types;show'= {
        }
        &'keyhook;help;event-types;update'= {
        }
        &'keyhook;help;event-types;deprecate'= {
        }
        &'keyhook;help;event-types;delete'= {
        }
        &'keyhook;help;portal'= {
            cand link 'Mint a single-use link to the developer portal for --user (printed once: a secret)'
            cand revoke 'Revoke a link (and end its session), or every link of --user'
            cand list 'List --user''s live links (not yet opened) and sessions'
        }
        &'keyhook;help;portal;link'= {
        }
        &'keyhook;help;portal;revoke'= {
        }
        &'keyhook;help;portal;list'= {
        }
        &'keyhook;help;deliver'= {
        }
        &'keyhook;help;listen'= {
        }
        &'keyhook;help;db'= {
            cand copy 'Copy everything in the --db database into an empty database'
            cand rekey 'Encrypt the webhook secrets at rest under a new secrets key'
        }
        &'keyhook;help;db;copy'= {
        }
        &'keyhook;help;db;rekey'= {
        }
        &'keyhook;help;audit'= {
        }
        &'keyhook;help;backup'= {
        }
        &'keyhook;help;serve'= {
        }
        &'keyhook;help;prune'= {
        }
        &'keyhook;help;completions'= {
        }
        &'keyhook;help;help'= {
        }
    ]
    $completions[$command]
}
