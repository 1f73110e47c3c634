
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'keyhook' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'keyhook'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'keyhook' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'Create, list, show, delete, rotate and verify API keys')
            [CompletionResult]::new('key', 'key', [CompletionResultType]::ParameterValue, 'Create, list, show, delete, rotate and verify API keys')
            [CompletionResult]::new('webhooks', 'webhooks', [CompletionResultType]::ParameterValue, 'Create, list, test, enable, disable and delete webhook subscriptions')
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Create, list, test, enable, disable and delete webhook subscriptions')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'Emit events to subscribed webhooks')
            [CompletionResult]::new('event-types', 'event-types', [CompletionResultType]::ParameterValue, 'Add, list, show, update, deprecate and delete the event types webhooks subscribe to')
            [CompletionResult]::new('portal', 'portal', [CompletionResultType]::ParameterValue, 'Mint, revoke and list links to the developer portal that serve shows your customers')
            [CompletionResult]::new('deliver', 'deliver', [CompletionResultType]::ParameterValue, 'Send queued webhook deliveries (with --once: what is due now, then exit)')
            [CompletionResult]::new('listen', 'listen', [CompletionResultType]::ParameterValue, 'Receive real, signed deliveries here while this runs (an ephemeral webhook), or forward them to a local URL')
            [CompletionResult]::new('db', 'db', [CompletionResultType]::ParameterValue, 'Copy the whole database into another, empty one')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Show the audit log: who changed which key or webhook, newest first')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Back up the SQLite database into FILE while others keep writing')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the /api/v1 HTTP JSON API (and deliver webhooks)')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete events, finished deliveries and attempts older than a duration, now')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;keys' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a key and print it; the plaintext is shown this once and never stored')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s keys (never the plaintext)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one key')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a key; requests made with it are refused from then on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a key with a new one of the same name, permission and scope')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete the user''s keys that expired more than DUR ago (default 30 days)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find keys in files, directories or standard input; exit 4 if an active one is found')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a key read from standard input: exit 0 if it may be used, 4 if not')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;key' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a key and print it; the plaintext is shown this once and never stored')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s keys (never the plaintext)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one key')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a key; requests made with it are refused from then on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a key with a new one of the same name, permission and scope')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete the user''s keys that expired more than DUR ago (default 30 days)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find keys in files, directories or standard input; exit 4 if an active one is found')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a key read from standard input: exit 0 if it may be used, 4 if not')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;keys;create' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'A label for the key (1 to 100 characters)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'A label for the key (1 to 100 characters)')
            [CompletionResult]::new('--permission', '--permission', [CompletionResultType]::ParameterName, 'What the key may do')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Limit the key to this profile (repeat for several); without it the key has full access')
            [CompletionResult]::new('--expires-at', '--expires-at', [CompletionResultType]::ParameterName, 'Expiry time, RFC 3339 with an offset (2030-01-01T00:00:00Z)')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Expiry as a duration from now (90m, 12h, 30d, 2w)')
            [CompletionResult]::new('--rate-limit', '--rate-limit', [CompletionResultType]::ParameterName, 'This key''s own rate limit (N/s or N/min, burst N), instead of serve --rate-limit''s')
            [CompletionResult]::new('--max-uses', '--max-uses', [CompletionResultType]::ParameterName, 'How many requests the key may make; then it is refused (403 KEY_EXHAUSTED)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the plaintext key')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the plaintext key')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;create' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'A label for the key (1 to 100 characters)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'A label for the key (1 to 100 characters)')
            [CompletionResult]::new('--permission', '--permission', [CompletionResultType]::ParameterName, 'What the key may do')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Limit the key to this profile (repeat for several); without it the key has full access')
            [CompletionResult]::new('--expires-at', '--expires-at', [CompletionResultType]::ParameterName, 'Expiry time, RFC 3339 with an offset (2030-01-01T00:00:00Z)')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Expiry as a duration from now (90m, 12h, 30d, 2w)')
            [CompletionResult]::new('--rate-limit', '--rate-limit', [CompletionResultType]::ParameterName, 'This key''s own rate limit (N/s or N/min, burst N), instead of serve --rate-limit''s')
            [CompletionResult]::new('--max-uses', '--max-uses', [CompletionResultType]::ParameterName, 'How many requests the key may make; then it is refused (403 KEY_EXHAUSTED)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the plaintext key')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the plaintext key')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--all-users', '--all-users', [CompletionResultType]::ParameterName, 'List the keys of every user')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--all-users', '--all-users', [CompletionResultType]::ParameterName, 'List the keys of every user')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;show' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;show' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;delete' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;delete' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;rotate' {
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Keep the old key working this long (e.g. 1h, 7d) instead of deleting it at once (0s: it expires now and stays listed until deleted or pruned)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the new plaintext key')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the new plaintext key')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;rotate' {
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Keep the old key working this long (e.g. 1h, 7d) instead of deleting it at once (0s: it expires now and stays listed until deleted or pruned)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the new plaintext key')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the new plaintext key')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;prune' {
            [CompletionResult]::new('--expired-for', '--expired-for', [CompletionResultType]::ParameterName, 'How long ago a key must have expired to be deleted (e.g. 7d, 12h; 0s: every expired key)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;prune' {
            [CompletionResult]::new('--expired-for', '--expired-for', [CompletionResultType]::ParameterName, 'How long ago a key must have expired to be deleted (e.g. 7d, 12h; 0s: every expired key)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;scan' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--revoke', '--revoke', [CompletionResultType]::ParameterName, 'Delete every active key found (each in its own transaction, audited as leaked)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask before revoking (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask before revoking (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;scan' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--revoke', '--revoke', [CompletionResultType]::ParameterName, 'Delete every active key found (each in its own transaction, audited as leaked)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask before revoking (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask before revoking (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;verify' {
            [CompletionResult]::new('--method', '--method', [CompletionResultType]::ParameterName, 'The HTTP method the key would be used for')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'A profile the key would touch')
            [CompletionResult]::new('--uri', '--uri', [CompletionResultType]::ParameterName, 'The URI (path and query) of a request to the guarded service, decided as /api/v1/auth decides it (docs/guarding.md)')
            [CompletionResult]::new('--auth-profile', '--auth-profile', [CompletionResultType]::ParameterName, 'Where --uri names a profile, as serve --auth-profile (repeat for several)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;key;verify' {
            [CompletionResult]::new('--method', '--method', [CompletionResultType]::ParameterName, 'The HTTP method the key would be used for')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'A profile the key would touch')
            [CompletionResult]::new('--uri', '--uri', [CompletionResultType]::ParameterName, 'The URI (path and query) of a request to the guarded service, decided as /api/v1/auth decides it (docs/guarding.md)')
            [CompletionResult]::new('--auth-profile', '--auth-profile', [CompletionResultType]::ParameterName, 'Where --uri names a profile, as serve --auth-profile (repeat for several)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;keys;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a key and print it; the plaintext is shown this once and never stored')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s keys (never the plaintext)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one key')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a key; requests made with it are refused from then on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a key with a new one of the same name, permission and scope')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete the user''s keys that expired more than DUR ago (default 30 days)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find keys in files, directories or standard input; exit 4 if an active one is found')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a key read from standard input: exit 0 if it may be used, 4 if not')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;keys;help;create' {
            break
        }
        'keyhook;keys;help;list' {
            break
        }
        'keyhook;keys;help;show' {
            break
        }
        'keyhook;keys;help;delete' {
            break
        }
        'keyhook;keys;help;rotate' {
            break
        }
        'keyhook;keys;help;prune' {
            break
        }
        'keyhook;keys;help;scan' {
            break
        }
        'keyhook;keys;help;verify' {
            break
        }
        'keyhook;keys;help;help' {
            break
        }
        'keyhook;key;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a key and print it; the plaintext is shown this once and never stored')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s keys (never the plaintext)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one key')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a key; requests made with it are refused from then on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a key with a new one of the same name, permission and scope')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete the user''s keys that expired more than DUR ago (default 30 days)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find keys in files, directories or standard input; exit 4 if an active one is found')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a key read from standard input: exit 0 if it may be used, 4 if not')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;key;help;create' {
            break
        }
        'keyhook;key;help;list' {
            break
        }
        'keyhook;key;help;show' {
            break
        }
        'keyhook;key;help;delete' {
            break
        }
        'keyhook;key;help;rotate' {
            break
        }
        'keyhook;key;help;prune' {
            break
        }
        'keyhook;key;help;scan' {
            break
        }
        'keyhook;key;help;verify' {
            break
        }
        'keyhook;key;help;help' {
            break
        }
        'keyhook;webhooks' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Subscribe a URL to events (at most 10 webhooks per user)')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s webhooks')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret included')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test delivery now and report what the endpoint answered')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Re-enable a webhook and reset its failure count')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop event deliveries to a webhook')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook and its delivery log')
            [CompletionResult]::new('rotate-secret', 'rotate-secret', [CompletionResultType]::ParameterValue, 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show the newest delivery attempts to a webhook')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Queue past events again for a webhook (after its endpoint was down)')
            [CompletionResult]::new('filter-test', 'filter-test', [CompletionResultType]::ParameterValue, 'Try a filter on an event before saving it: prints true or false, or why it fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;webhook' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Subscribe a URL to events (at most 10 webhooks per user)')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s webhooks')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret included')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test delivery now and report what the endpoint answered')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Re-enable a webhook and reset its failure count')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop event deliveries to a webhook')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook and its delivery log')
            [CompletionResult]::new('rotate-secret', 'rotate-secret', [CompletionResultType]::ParameterValue, 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show the newest delivery attempts to a webhook')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Queue past events again for a webhook (after its endpoint was down)')
            [CompletionResult]::new('filter-test', 'filter-test', [CompletionResultType]::ParameterValue, 'Try a filter on an event before saving it: prints true or false, or why it fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;webhooks;create' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The http(s) URL that receives the deliveries')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'An event to subscribe to (repeat for several), e.g. post.published')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Deliver only events of this profile (repeat for several); without it the webhook gets the events of all profiles, and user-wide events')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Deliver only the events for which this CEL expression over event, profileId and data is true, e.g. ''data.tags.exists(t, t == "breaking")''')
            [CompletionResult]::new('--retry-schedule', '--retry-schedule', [CompletionResultType]::ParameterName, 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance')
            [CompletionResult]::new('--signing', '--signing', [CompletionResultType]::ParameterName, 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--ordered', '--ordered', [CompletionResultType]::ParameterName, 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;create' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The http(s) URL that receives the deliveries')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'An event to subscribe to (repeat for several), e.g. post.published')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Deliver only events of this profile (repeat for several); without it the webhook gets the events of all profiles, and user-wide events')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Deliver only the events for which this CEL expression over event, profileId and data is true, e.g. ''data.tags.exists(t, t == "breaking")''')
            [CompletionResult]::new('--retry-schedule', '--retry-schedule', [CompletionResultType]::ParameterName, 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance')
            [CompletionResult]::new('--signing', '--signing', [CompletionResultType]::ParameterName, 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--ordered', '--ordered', [CompletionResultType]::ParameterName, 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;update' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The new http(s) URL')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'The events to subscribe to, replacing the current ones (repeat for several)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Deliver only events of these profiles, replacing the current scope (repeat for several)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Deliver only the events for which this CEL expression is true, replacing the current filter')
            [CompletionResult]::new('--retry-schedule', '--retry-schedule', [CompletionResultType]::ParameterName, 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance')
            [CompletionResult]::new('--signing', '--signing', [CompletionResultType]::ParameterName, 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'Stop sending this static header (repeat for several)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--all-profiles', '--all-profiles', [CompletionResultType]::ParameterName, 'Deliver the events of all profiles, and user-wide events')
            [CompletionResult]::new('--no-filter', '--no-filter', [CompletionResultType]::ParameterName, 'Remove the filter: deliver every subscribed event')
            [CompletionResult]::new('--ordered', '--ordered', [CompletionResultType]::ParameterName, 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted')
            [CompletionResult]::new('--no-retry-schedule', '--no-retry-schedule', [CompletionResultType]::ParameterName, 'Go back to serve''s retry schedule')
            [CompletionResult]::new('--no-timeout', '--no-timeout', [CompletionResultType]::ParameterName, 'Go back to serve''s delivery timeout')
            [CompletionResult]::new('--no-rate', '--no-rate', [CompletionResultType]::ParameterName, 'No rate limit: as fast as the workers go')
            [CompletionResult]::new('--no-ordered', '--no-ordered', [CompletionResultType]::ParameterName, 'Deliver as fast as the workers go, several at a time, in no particular order')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;update' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The new http(s) URL')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'The events to subscribe to, replacing the current ones (repeat for several)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Deliver only events of these profiles, replacing the current scope (repeat for several)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Deliver only the events for which this CEL expression is true, replacing the current filter')
            [CompletionResult]::new('--retry-schedule', '--retry-schedule', [CompletionResultType]::ParameterName, 'This webhook''s delays before each retry, comma-separated, as serve''s --retry-schedule (at most 50; "" for no retry), instead of serve''s')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long one delivery to this webhook may take (at most 10m), instead of serve''s --delivery-timeout')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance')
            [CompletionResult]::new('--signing', '--signing', [CompletionResultType]::ParameterName, 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook''s public key alone) or both')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'Stop sending this static header (repeat for several)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--all-profiles', '--all-profiles', [CompletionResultType]::ParameterName, 'Deliver the events of all profiles, and user-wide events')
            [CompletionResult]::new('--no-filter', '--no-filter', [CompletionResultType]::ParameterName, 'Remove the filter: deliver every subscribed event')
            [CompletionResult]::new('--ordered', '--ordered', [CompletionResultType]::ParameterName, 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted')
            [CompletionResult]::new('--no-retry-schedule', '--no-retry-schedule', [CompletionResultType]::ParameterName, 'Go back to serve''s retry schedule')
            [CompletionResult]::new('--no-timeout', '--no-timeout', [CompletionResultType]::ParameterName, 'Go back to serve''s delivery timeout')
            [CompletionResult]::new('--no-rate', '--no-rate', [CompletionResultType]::ParameterName, 'No rate limit: as fast as the workers go')
            [CompletionResult]::new('--no-ordered', '--no-ordered', [CompletionResultType]::ParameterName, 'Deliver as fast as the workers go, several at a time, in no particular order')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;show' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;show' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;test' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;test' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;enable' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;enable' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;disable' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;disable' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;delete' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;delete' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;rotate-secret' {
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Keep signing with the old secret too for this long (0 to 7d; 0 drops it at once)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;rotate-secret' {
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Keep signing with the old secret too for this long (0 to 7d; 0 drops it at once)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;deliveries' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;deliveries' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;replay' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Replay events since this time: RFC 3339, or a duration ago such as 2h [default: 24h]')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'Replay only this event (its id, evt_...)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--failed-only', '--failed-only', [CompletionResultType]::ParameterName, 'Only events whose last delivery to this webhook failed; one waiting for its next retry is sent now (not queued twice)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;replay' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Replay events since this time: RFC 3339, or a duration ago such as 2h [default: 24h]')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'Replay only this event (its id, evt_...)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--failed-only', '--failed-only', [CompletionResultType]::ParameterName, 'Only events whose last delivery to this webhook failed; one waiting for its next retry is sent now (not queued twice)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;filter-test' {
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'The event type: the filter''s `event`, and without --data its catalog example is the data')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'The event''s data instead of the example: a JSON object, @FILE to read it from a file, or - for stdin')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'The event''s profile, the filter''s `profileId` (without it: null)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhook;filter-test' {
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'The event type: the filter''s `event`, and without --data its catalog example is the data')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'The event''s data instead of the example: a JSON object, @FILE to read it from a file, or - for stdin')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'The event''s profile, the filter''s `profileId` (without it: null)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;webhooks;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Subscribe a URL to events (at most 10 webhooks per user)')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s webhooks')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret included')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test delivery now and report what the endpoint answered')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Re-enable a webhook and reset its failure count')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop event deliveries to a webhook')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook and its delivery log')
            [CompletionResult]::new('rotate-secret', 'rotate-secret', [CompletionResultType]::ParameterValue, 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show the newest delivery attempts to a webhook')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Queue past events again for a webhook (after its endpoint was down)')
            [CompletionResult]::new('filter-test', 'filter-test', [CompletionResultType]::ParameterValue, 'Try a filter on an event before saving it: prints true or false, or why it fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;webhooks;help;create' {
            break
        }
        'keyhook;webhooks;help;update' {
            break
        }
        'keyhook;webhooks;help;list' {
            break
        }
        'keyhook;webhooks;help;show' {
            break
        }
        'keyhook;webhooks;help;test' {
            break
        }
        'keyhook;webhooks;help;enable' {
            break
        }
        'keyhook;webhooks;help;disable' {
            break
        }
        'keyhook;webhooks;help;delete' {
            break
        }
        'keyhook;webhooks;help;rotate-secret' {
            break
        }
        'keyhook;webhooks;help;deliveries' {
            break
        }
        'keyhook;webhooks;help;replay' {
            break
        }
        'keyhook;webhooks;help;filter-test' {
            break
        }
        'keyhook;webhooks;help;help' {
            break
        }
        'keyhook;webhook;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Subscribe a URL to events (at most 10 webhooks per user)')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s webhooks')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret included')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test delivery now and report what the endpoint answered')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Re-enable a webhook and reset its failure count')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop event deliveries to a webhook')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook and its delivery log')
            [CompletionResult]::new('rotate-secret', 'rotate-secret', [CompletionResultType]::ParameterValue, 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show the newest delivery attempts to a webhook')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Queue past events again for a webhook (after its endpoint was down)')
            [CompletionResult]::new('filter-test', 'filter-test', [CompletionResultType]::ParameterValue, 'Try a filter on an event before saving it: prints true or false, or why it fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;webhook;help;create' {
            break
        }
        'keyhook;webhook;help;update' {
            break
        }
        'keyhook;webhook;help;list' {
            break
        }
        'keyhook;webhook;help;show' {
            break
        }
        'keyhook;webhook;help;test' {
            break
        }
        'keyhook;webhook;help;enable' {
            break
        }
        'keyhook;webhook;help;disable' {
            break
        }
        'keyhook;webhook;help;delete' {
            break
        }
        'keyhook;webhook;help;rotate-secret' {
            break
        }
        'keyhook;webhook;help;deliveries' {
            break
        }
        'keyhook;webhook;help;replay' {
            break
        }
        'keyhook;webhook;help;filter-test' {
            break
        }
        'keyhook;webhook;help;help' {
            break
        }
        'keyhook;events' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('emit', 'emit', [CompletionResultType]::ParameterValue, 'Queue an event for every active webhook of the user subscribed to it')
            [CompletionResult]::new('trigger', 'trigger', [CompletionResultType]::ParameterValue, 'Emit the event type''s example (see event-types), with changes, to try a receiver')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;events;emit' {
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'The event''s data: a JSON object, @FILE to read it from a file, or - for stdin')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'The profile the event is about: only webhooks whose scope covers it get it; without it the event is user-wide and goes only to webhooks of all profiles')
            [CompletionResult]::new('--idempotency-key', '--idempotency-key', [CompletionResultType]::ParameterName, 'A key for this event (1-255 printable ASCII characters): a repeat with the same key within 24 hours queues nothing and prints the first event')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;events;trigger' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'The profile the event is about (as events emit --profile)')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Change one field of the example (repeatable)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;events;help' {
            [CompletionResult]::new('emit', 'emit', [CompletionResultType]::ParameterValue, 'Queue an event for every active webhook of the user subscribed to it')
            [CompletionResult]::new('trigger', 'trigger', [CompletionResultType]::ParameterValue, 'Emit the event type''s example (see event-types), with changes, to try a receiver')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;events;help;emit' {
            break
        }
        'keyhook;events;help;trigger' {
            break
        }
        'keyhook;events;help;help' {
            break
        }
        'keyhook;event-types' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an event type to the catalog')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the event catalog')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show an event type with its schema and example')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change an event type''s description, schema, example or profile rule')
            [CompletionResult]::new('deprecate', 'deprecate', [CompletionResultType]::ParameterValue, 'Deprecate an event type: no new subscriptions, existing ones keep receiving')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an event type nothing subscribes to and nothing is pending for')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;event-types;add' {
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'What the event means (at most 500 characters)')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'A JSON Schema (draft 2020-12) the events'' data must match: a file, or - for stdin')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'An example of the events'' data (a JSON object), for `events trigger`: a file, or -')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--profile-required', '--profile-required', [CompletionResultType]::ParameterName, 'Events of this type must name a profile (--profile, profileId)')
            [CompletionResult]::new('--user-wide', '--user-wide', [CompletionResultType]::ParameterName, 'Events of this type must not name a profile')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;event-types;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--names', '--names', [CompletionResultType]::ParameterName, 'Print only the names, one per line (what shell completion reads)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;event-types;show' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;event-types;update' {
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'What the event means (at most 500 characters)')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'A JSON Schema (draft 2020-12) the events'' data must match: a file, or - for stdin')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'An example of the events'' data (a JSON object), for `events trigger`: a file, or -')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--profile-required', '--profile-required', [CompletionResultType]::ParameterName, 'Events of this type must name a profile (--profile, profileId)')
            [CompletionResult]::new('--user-wide', '--user-wide', [CompletionResultType]::ParameterName, 'Events of this type must not name a profile')
            [CompletionResult]::new('--profile-optional', '--profile-optional', [CompletionResultType]::ParameterName, 'Events of this type may name a profile or not (the default)')
            [CompletionResult]::new('--clear-description', '--clear-description', [CompletionResultType]::ParameterName, 'Remove the description')
            [CompletionResult]::new('--clear-schema', '--clear-schema', [CompletionResultType]::ParameterName, 'Remove the schema: data is no longer checked')
            [CompletionResult]::new('--clear-example', '--clear-example', [CompletionResultType]::ParameterName, 'Remove the example')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;event-types;deprecate' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;event-types;delete' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;event-types;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an event type to the catalog')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the event catalog')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show an event type with its schema and example')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change an event type''s description, schema, example or profile rule')
            [CompletionResult]::new('deprecate', 'deprecate', [CompletionResultType]::ParameterValue, 'Deprecate an event type: no new subscriptions, existing ones keep receiving')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an event type nothing subscribes to and nothing is pending for')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;event-types;help;add' {
            break
        }
        'keyhook;event-types;help;list' {
            break
        }
        'keyhook;event-types;help;show' {
            break
        }
        'keyhook;event-types;help;update' {
            break
        }
        'keyhook;event-types;help;deprecate' {
            break
        }
        'keyhook;event-types;help;delete' {
            break
        }
        'keyhook;event-types;help;help' {
            break
        }
        'keyhook;portal' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Mint a single-use link to the developer portal for --user (printed once: a secret)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a link (and end its session), or every link of --user')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List --user''s live links (not yet opened) and sessions')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;portal;link' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Limit the link to this profile (repeat for several); without it: all profiles')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long the link may wait to be opened (at most 24h)')
            [CompletionResult]::new('--public-url', '--public-url', [CompletionResultType]::ParameterName, 'Where serve is reached; the link is {public-url}/portal#<token>')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'The portal shows everything and changes nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;portal;revoke' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every link of --user')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;portal;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;portal;help' {
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Mint a single-use link to the developer portal for --user (printed once: a secret)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a link (and end its session), or every link of --user')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List --user''s live links (not yet opened) and sessions')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;portal;help;link' {
            break
        }
        'keyhook;portal;help;revoke' {
            break
        }
        'keyhook;portal;help;list' {
            break
        }
        'keyhook;portal;help;help' {
            break
        }
        'keyhook;deliver' {
            [CompletionResult]::new('--retry-schedule', '--retry-schedule', [CompletionResultType]::ParameterName, 'Delays before each retry of a failed delivery, comma-separated')
            [CompletionResult]::new('--delivery-workers', '--delivery-workers', [CompletionResultType]::ParameterName, 'Deliveries sent at once')
            [CompletionResult]::new('--retention', '--retention', [CompletionResultType]::ParameterName, 'Delete events, finished deliveries and attempts older than this (at least 1s), in small batches; pending deliveries and their events are kept')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Send what is due now, then exit (for cron) instead of waiting for more')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;listen' {
            [CompletionResult]::new('--forward-to', '--forward-to', [CompletionResultType]::ParameterName, 'Send each delivery here, with its original headers and body; the answer is the delivery''s (a 500 is retried, a 410 disables). Loopback and private addresses are allowed; {event} in the path is the event''s name. Without it, deliveries come to a receiver of this process on a loopback port, which checks their signatures')
            [CompletionResult]::new('--event', '--event', [CompletionResultType]::ParameterName, 'An event to subscribe to (repeat for several); without it, every event')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Deliver only events of this profile (repeat for several); without it the events of all profiles, and user-wide events')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Deliver only events for which this CEL expression over event, profileId and data is true (the webhook''s filter, as in `webhooks create --filter`)')
            [CompletionResult]::new('--retry-schedule', '--retry-schedule', [CompletionResultType]::ParameterName, 'Delays before each retry of a failed delivery, comma-separated')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;db' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy everything in the --db database into an empty database')
            [CompletionResult]::new('rekey', 'rekey', [CompletionResultType]::ParameterValue, 'Encrypt the webhook secrets at rest under a new secrets key')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;db;copy' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The database to copy into, named like --db; it must be empty (a missing file is created)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;db;rekey' {
            [CompletionResult]::new('--new-key', '--new-key', [CompletionResultType]::ParameterName, 'The new key (base64 of 32 bytes) from this file, or - for standard input; without it a key is generated (only with the key file)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;db;help' {
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy everything in the --db database into an empty database')
            [CompletionResult]::new('rekey', 'rekey', [CompletionResultType]::ParameterValue, 'Encrypt the webhook secrets at rest under a new secrets key')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;db;help;copy' {
            break
        }
        'keyhook;db;help;rekey' {
            break
        }
        'keyhook;db;help;help' {
            break
        }
        'keyhook;audit' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only entries at or after TS (RFC 3339) or this long ago (90m, 7d)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most N entries (1 to 1000)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--all-users', '--all-users', [CompletionResultType]::ParameterName, 'The entries of every user')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;backup' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;serve' {
            [CompletionResult]::new('--bind', '--bind', [CompletionResultType]::ParameterName, 'Address to listen on (port 0 picks a free port; the address is printed on stderr)')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Requests handled at once (each connection has its own thread; more wait their turn)')
            [CompletionResult]::new('--read-timeout', '--read-timeout', [CompletionResultType]::ParameterName, 'Disconnect a client that sends nothing for this long (between requests or within one)')
            [CompletionResult]::new('--header-timeout', '--header-timeout', [CompletionResultType]::ParameterName, 'Disconnect a client whose request head (request line and headers) takes longer than this (from connecting for the first request, from its first byte for later ones), or whose request body takes longer than this after the head')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Connections served at once; a connection over the limit is answered 503 and closed')
            [CompletionResult]::new('--max-connections-per-address', '--max-connections-per-address', [CompletionResultType]::ParameterName, 'Of those, connections served at once from one client address (an IPv6 address counts by its /64 prefix); one more from it is answered 503 and closed, so that one client cannot take all of --max-connections. Behind a proxy every client has the proxy''s address: raise it to --max-connections there')
            [CompletionResult]::new('--rate-limit', '--rate-limit', [CompletionResultType]::ParameterName, 'Requests per API key, N/s or N/min (burst N), counted by this instance; failed authentications are limited per client address at the same rate. Off when not given')
            [CompletionResult]::new('--auth-profile', '--auth-profile', [CompletionResultType]::ParameterName, 'Where the URIs that /api/v1/auth is asked about name a profile: a path template with {profile} as one whole segment, matched as a prefix (e.g. /profiles/{profile}/); repeat for several (docs/guarding.md)')
            [CompletionResult]::new('--trusted-proxy', '--trusted-proxy', [CompletionResultType]::ParameterName, 'A reverse proxy''s address or network (e.g. 127.0.0.1/32); only from such peers are X-Forwarded-For / X-Real-IP read as the client''s address (failed-authentication limit); repeat for several. None by default')
            [CompletionResult]::new('--public-url', '--public-url', [CompletionResultType]::ParameterName, 'Where this server is reached from outside (https://keys.example.com): portal links point there, and the portal''s cookie is Secure when it is https. Default: http:// and the bound address')
            [CompletionResult]::new('--portal-embed-origin', '--portal-embed-origin', [CompletionResultType]::ParameterName, 'An https origin allowed to show the portal in a frame (repeat for several); the portal''s cookie is then SameSite=None; Secure; Partitioned. Needs an https --public-url')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How log lines are written on stderr: text, or one JSON object per line (the filter is KEYHOOK_LOG, default info)')
            [CompletionResult]::new('--retry-schedule', '--retry-schedule', [CompletionResultType]::ParameterName, 'Delays before each retry of a failed delivery, comma-separated')
            [CompletionResult]::new('--delivery-workers', '--delivery-workers', [CompletionResultType]::ParameterName, 'Deliveries sent at once')
            [CompletionResult]::new('--retention', '--retention', [CompletionResultType]::ParameterName, 'Delete events, finished deliveries and attempts older than this (at least 1s), in small batches; pending deliveries and their events are kept')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--portal-allow-private-targets', '--portal-allow-private-targets', [CompletionResultType]::ParameterName, 'Let the portal point webhooks at private and loopback addresses (local development and tests only; --allow-private-targets does not reach the portal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;prune' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Delete events, finished deliveries and attempts older than this (0s: everything finished until now); pending deliveries and their events are kept')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;completions' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server''s postgres:// URL')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The user that owns what is created and listed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When tables use color (NO_COLOR turns auto off)')
            [CompletionResult]::new('--delivery-timeout', '--delivery-timeout', [CompletionResultType]::ParameterName, 'How long one webhook delivery may take before it counts as failed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly the HTTP API''s response body ({"data": ...} or {"error": ...})')
            [CompletionResult]::new('--allow-private-targets', '--allow-private-targets', [CompletionResultType]::ParameterName, 'Allow webhook deliveries to loopback, private and link-local addresses')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'keyhook;help' {
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'Create, list, show, delete, rotate and verify API keys')
            [CompletionResult]::new('webhooks', 'webhooks', [CompletionResultType]::ParameterValue, 'Create, list, test, enable, disable and delete webhook subscriptions')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'Emit events to subscribed webhooks')
            [CompletionResult]::new('event-types', 'event-types', [CompletionResultType]::ParameterValue, 'Add, list, show, update, deprecate and delete the event types webhooks subscribe to')
            [CompletionResult]::new('portal', 'portal', [CompletionResultType]::ParameterValue, 'Mint, revoke and list links to the developer portal that serve shows your customers')
            [CompletionResult]::new('deliver', 'deliver', [CompletionResultType]::ParameterValue, 'Send queued webhook deliveries (with --once: what is due now, then exit)')
            [CompletionResult]::new('listen', 'listen', [CompletionResultType]::ParameterValue, 'Receive real, signed deliveries here while this runs (an ephemeral webhook), or forward them to a local URL')
            [CompletionResult]::new('db', 'db', [CompletionResultType]::ParameterValue, 'Copy the whole database into another, empty one')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Show the audit log: who changed which key or webhook, newest first')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Back up the SQLite database into FILE while others keep writing')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the /api/v1 HTTP JSON API (and deliver webhooks)')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete events, finished deliveries and attempts older than a duration, now')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'keyhook;help;keys' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a key and print it; the plaintext is shown this once and never stored')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s keys (never the plaintext)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one key')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a key; requests made with it are refused from then on')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Replace a key with a new one of the same name, permission and scope')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete the user''s keys that expired more than DUR ago (default 30 days)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find keys in files, directories or standard input; exit 4 if an active one is found')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check a key read from standard input: exit 0 if it may be used, 4 if not')
            break
        }
        'keyhook;help;keys;create' {
            break
        }
        'keyhook;help;keys;list' {
            break
        }
        'keyhook;help;keys;show' {
            break
        }
        'keyhook;help;keys;delete' {
            break
        }
        'keyhook;help;keys;rotate' {
            break
        }
        'keyhook;help;keys;prune' {
            break
        }
        'keyhook;help;keys;scan' {
            break
        }
        'keyhook;help;keys;verify' {
            break
        }
        'keyhook;help;webhooks' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Subscribe a URL to events (at most 10 webhooks per user)')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a webhook''s URL, events, scope or filter (what PATCH /webhooks/{id} changes)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the user''s webhooks')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret included')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Send a webhook.test delivery now and report what the endpoint answered')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Re-enable a webhook and reset its failure count')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Stop event deliveries to a webhook')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook and its delivery log')
            [CompletionResult]::new('rotate-secret', 'rotate-secret', [CompletionResultType]::ParameterValue, 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'Show the newest delivery attempts to a webhook')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Queue past events again for a webhook (after its endpoint was down)')
            [CompletionResult]::new('filter-test', 'filter-test', [CompletionResultType]::ParameterValue, 'Try a filter on an event before saving it: prints true or false, or why it fails')
            break
        }
        'keyhook;help;webhooks;create' {
            break
        }
        'keyhook;help;webhooks;update' {
            break
        }
        'keyhook;help;webhooks;list' {
            break
        }
        'keyhook;help;webhooks;show' {
            break
        }
        'keyhook;help;webhooks;test' {
            break
        }
        'keyhook;help;webhooks;enable' {
            break
        }
        'keyhook;help;webhooks;disable' {
            break
        }
        'keyhook;help;webhooks;delete' {
            break
        }
        'keyhook;help;webhooks;rotate-secret' {
            break
        }
        'keyhook;help;webhooks;deliveries' {
            break
        }
        'keyhook;help;webhooks;replay' {
            break
        }
        'keyhook;help;webhooks;filter-test' {
            break
        }
        'keyhook;help;events' {
            [CompletionResult]::new('emit', 'emit', [CompletionResultType]::ParameterValue, 'Queue an event for every active webhook of the user subscribed to it')
            [CompletionResult]::new('trigger', 'trigger', [CompletionResultType]::ParameterValue, 'Emit the event type''s example (see event-types), with changes, to try a receiver')
            break
        }
        'keyhook;help;events;emit' {
            break
        }
        'keyhook;help;events;trigger' {
            break
        }
        'keyhook;help;event-types' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an event type to the catalog')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the event catalog')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show an event type with its schema and example')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change an event type''s description, schema, example or profile rule')
            [CompletionResult]::new('deprecate', 'deprecate', [CompletionResultType]::ParameterValue, 'Deprecate an event type: no new subscriptions, existing ones keep receiving')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an event type nothing subscribes to and nothing is pending for')
            break
        }
        'keyhook;help;event-types;add' {
            break
        }
        'keyhook;help;event-types;list' {
            break
        }
        'keyhook;help;event-types;show' {
            break
        }
        'keyhook;help;event-types;update' {
            break
        }
        'keyhook;help;event-types;deprecate' {
            break
        }
        'keyhook;help;event-types;delete' {
            break
        }
        'keyhook;help;portal' {
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Mint a single-use link to the developer portal for --user (printed once: a secret)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a link (and end its session), or every link of --user')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List --user''s live links (not yet opened) and sessions')
            break
        }
        'keyhook;help;portal;link' {
            break
        }
        'keyhook;help;portal;revoke' {
            break
        }
        'keyhook;help;portal;list' {
            break
        }
        'keyhook;help;deliver' {
            break
        }
        'keyhook;help;listen' {
            break
        }
        'keyhook;help;db' {
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy everything in the --db database into an empty database')
            [CompletionResult]::new('rekey', 'rekey', [CompletionResultType]::ParameterValue, 'Encrypt the webhook secrets at rest under a new secrets key')
            break
        }
        'keyhook;help;db;copy' {
            break
        }
        'keyhook;help;db;rekey' {
            break
        }
        'keyhook;help;audit' {
            break
        }
        'keyhook;help;backup' {
            break
        }
        'keyhook;help;serve' {
            break
        }
        'keyhook;help;prune' {
            break
        }
        'keyhook;help;completions' {
            break
        }
        'keyhook;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
