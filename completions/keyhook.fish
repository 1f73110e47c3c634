# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_keyhook_global_optspecs
    string join \n db= user= json color= allow-private-targets delivery-timeout= h/help V/version
end

function __fish_keyhook_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_keyhook_global_optspecs) -- $cmd 2>/dev/null
    or begin
        # The last word is an option still waiting for its value (keyhook --color <TAB>).
        set -e cmd[-1]
        argparse -s (__fish_keyhook_global_optspecs) -- $cmd 2>/dev/null
    end
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_keyhook_using_subcommand
    set -l cmd (__fish_keyhook_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c keyhook -n "__fish_keyhook_needs_command" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_needs_command" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_needs_command" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_needs_command" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_needs_command" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_needs_command" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_needs_command" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "keys" -d 'Create, list, show, delete, rotate and verify API keys'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "key" -d 'Create, list, show, delete, rotate and verify API keys'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "webhooks" -d 'Create, list, test, enable, disable and delete webhook subscriptions'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "webhook" -d 'Create, list, test, enable, disable and delete webhook subscriptions'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "events" -d 'Emit events to subscribed webhooks'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "event-types" -d 'Add, list, show, update, deprecate and delete the event types webhooks subscribe to'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "portal" -d 'Mint, revoke and list links to the developer portal that serve shows your customers'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "deliver" -d 'Send queued webhook deliveries (with --once: what is due now, then exit)'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "listen" -d 'Receive real, signed deliveries here while this runs (an ephemeral webhook), or forward them to a local URL'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "db" -d 'Copy the whole database into another, empty one'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "audit" -d 'Show the audit log: who changed which key or webhook, newest first'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "backup" -d 'Back up the SQLite database into FILE while others keep writing'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "serve" -d 'Serve the /api/v1 HTTP JSON API (and deliver webhooks)'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "prune" -d 'Delete events, finished deliveries and attempts older than a duration, now'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "completions" -d 'Print the completion script for a shell'
complete -c keyhook -n "__fish_keyhook_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "create" -d 'Create a key and print it; the plaintext is shown this once and never stored'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "list" -d 'List the user\'s keys (never the plaintext)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "show" -d 'Show one key'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "delete" -d 'Delete a key; requests made with it are refused from then on'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "rotate" -d 'Replace a key with a new one of the same name, permission and scope'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "prune" -d 'Delete the user\'s keys that expired more than DUR ago (default 30 days)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "scan" -d 'Find keys in files, directories or standard input; exit 4 if an active one is found'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "verify" -d 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -s n -l name -d 'A label for the key (1 to 100 characters)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l permission -d 'What the key may do' -r -f -a "readwrite\t''
readonly\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l profile -d 'Limit the key to this profile (repeat for several); without it the key has full access' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l expires-at -d 'Expiry time, RFC 3339 with an offset (2030-01-01T00:00:00Z)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l expires-in -d 'Expiry as a duration from now (90m, 12h, 30d, 2w)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l rate-limit -d 'This key\'s own rate limit (N/s or N/min, burst N), instead of serve --rate-limit\'s' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l max-uses -d 'How many requests the key may make; then it is refused (403 KEY_EXHAUSTED)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print only the plaintext key'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -l all-users -d 'List the keys of every user'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -l grace -d 'Keep the old key working this long (e.g. 1h, 7d) instead of deleting it at once (0s: it expires now and stays listed until deleted or pruned)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -s q -l quiet -d 'Print only the new plaintext key'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -l expired-for -d 'How long ago a key must have expired to be deleted (e.g. 7d, 12h; 0s: every expired key)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from prune" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -l revoke -d 'Delete every active key found (each in its own transaction, audited as leaked)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -s y -l yes -d 'Do not ask before revoking (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from scan" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l method -d 'The HTTP method the key would be used for' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l profile -d 'A profile the key would touch' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l uri -d 'The URI (path and query) of a request to the guarded service, decided as /api/v1/auth decides it (docs/guarding.md)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l auth-profile -d 'Where --uri names a profile, as serve --auth-profile (repeat for several)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a key and print it; the plaintext is shown this once and never stored'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the user\'s keys (never the plaintext)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one key'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a key; requests made with it are refused from then on'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "rotate" -d 'Replace a key with a new one of the same name, permission and scope'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Delete the user\'s keys that expired more than DUR ago (default 30 days)'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "scan" -d 'Find keys in files, directories or standard input; exit 4 if an active one is found'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "create" -d 'Create a key and print it; the plaintext is shown this once and never stored'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "list" -d 'List the user\'s keys (never the plaintext)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "show" -d 'Show one key'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "delete" -d 'Delete a key; requests made with it are refused from then on'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "rotate" -d 'Replace a key with a new one of the same name, permission and scope'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "prune" -d 'Delete the user\'s keys that expired more than DUR ago (default 30 days)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "scan" -d 'Find keys in files, directories or standard input; exit 4 if an active one is found'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "verify" -d 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and not __fish_seen_subcommand_from create list show delete rotate prune scan verify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -s n -l name -d 'A label for the key (1 to 100 characters)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l permission -d 'What the key may do' -r -f -a "readwrite\t''
readonly\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l profile -d 'Limit the key to this profile (repeat for several); without it the key has full access' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l expires-at -d 'Expiry time, RFC 3339 with an offset (2030-01-01T00:00:00Z)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l expires-in -d 'Expiry as a duration from now (90m, 12h, 30d, 2w)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l rate-limit -d 'This key\'s own rate limit (N/s or N/min, burst N), instead of serve --rate-limit\'s' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l max-uses -d 'How many requests the key may make; then it is refused (403 KEY_EXHAUSTED)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print only the plaintext key'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -l all-users -d 'List the keys of every user'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -l grace -d 'Keep the old key working this long (e.g. 1h, 7d) instead of deleting it at once (0s: it expires now and stays listed until deleted or pruned)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -s q -l quiet -d 'Print only the new plaintext key'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from rotate" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -l expired-for -d 'How long ago a key must have expired to be deleted (e.g. 7d, 12h; 0s: every expired key)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from prune" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -l revoke -d 'Delete every active key found (each in its own transaction, audited as leaked)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -s y -l yes -d 'Do not ask before revoking (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from scan" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l method -d 'The HTTP method the key would be used for' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l profile -d 'A profile the key would touch' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l uri -d 'The URI (path and query) of a request to the guarded service, decided as /api/v1/auth decides it (docs/guarding.md)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l auth-profile -d 'Where --uri names a profile, as serve --auth-profile (repeat for several)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a key and print it; the plaintext is shown this once and never stored'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the user\'s keys (never the plaintext)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one key'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a key; requests made with it are refused from then on'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "rotate" -d 'Replace a key with a new one of the same name, permission and scope'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Delete the user\'s keys that expired more than DUR ago (default 30 days)'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "scan" -d 'Find keys in files, directories or standard input; exit 4 if an active one is found'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
complete -c keyhook -n "__fish_keyhook_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "create" -d 'Subscribe a URL to events (at most 10 webhooks per user)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "update" -d 'Change a webhook\'s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "list" -d 'List the user\'s webhooks'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "show" -d 'Show one webhook, its secret included'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "test" -d 'Send a webhook.test delivery now and report what the endpoint answered'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "enable" -d 'Re-enable a webhook and reset its failure count'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "disable" -d 'Stop event deliveries to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "delete" -d 'Delete a webhook and its delivery log'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "rotate-secret" -d 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "deliveries" -d 'Show the newest delivery attempts to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "replay" -d 'Queue past events again for a webhook (after its endpoint was down)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "filter-test" -d 'Try a filter on an event before saving it: prints true or false, or why it fails'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l url -d 'The http(s) URL that receives the deliveries' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l event -d 'An event to subscribe to (repeat for several), e.g. post.published' -r -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l profile -d 'Deliver only events of this profile (repeat for several); without it the webhook gets the events of all profiles, and user-wide events' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l filter -d 'Deliver only the events for which this CEL expression over event, profileId and data is true, e.g. \'data.tags.exists(t, t == "breaking")\'' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l retry-schedule -d 'This webhook\'s delays before each retry, comma-separated, as serve\'s --retry-schedule (at most 50; "" for no retry), instead of serve\'s' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l timeout -d 'How long one delivery to this webhook may take (at most 10m), instead of serve\'s --delivery-timeout' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l rate -d 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l signing -d 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook\'s public key alone) or both' -r -f -a "hmac\t''
ed25519\t''
both\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l header -d 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l ordered -d 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l url -d 'The new http(s) URL' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l event -d 'The events to subscribe to, replacing the current ones (repeat for several)' -r -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l profile -d 'Deliver only events of these profiles, replacing the current scope (repeat for several)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l filter -d 'Deliver only the events for which this CEL expression is true, replacing the current filter' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l retry-schedule -d 'This webhook\'s delays before each retry, comma-separated, as serve\'s --retry-schedule (at most 50; "" for no retry), instead of serve\'s' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l timeout -d 'How long one delivery to this webhook may take (at most 10m), instead of serve\'s --delivery-timeout' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l rate -d 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l signing -d 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook\'s public key alone) or both' -r -f -a "hmac\t''
ed25519\t''
both\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l header -d 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l no-header -d 'Stop sending this static header (repeat for several)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l all-profiles -d 'Deliver the events of all profiles, and user-wide events'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l no-filter -d 'Remove the filter: deliver every subscribed event'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l ordered -d 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l no-retry-schedule -d 'Go back to serve\'s retry schedule'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l no-timeout -d 'Go back to serve\'s delivery timeout'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l no-rate -d 'No rate limit: as fast as the workers go'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l no-ordered -d 'Deliver as fast as the workers go, several at a time, in no particular order'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -l grace -d 'Keep signing with the old secret too for this long (0 to 7d; 0 drops it at once)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -s q -l quiet -d 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -s f -l follow -d 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l since -d 'Replay events since this time: RFC 3339, or a duration ago such as 2h [default: 24h]' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l event -d 'Replay only this event (its id, evt_...)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l failed-only -d 'Only events whose last delivery to this webhook failed; one waiting for its next retry is sent now (not queued twice)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l event -d 'The event type: the filter\'s `event`, and without --data its catalog example is the data' -r -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l data -d 'The event\'s data instead of the example: a JSON object, @FILE to read it from a file, or - for stdin' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l profile -d 'The event\'s profile, the filter\'s `profileId` (without it: null)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "create" -d 'Subscribe a URL to events (at most 10 webhooks per user)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a webhook\'s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the user\'s webhooks'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one webhook, its secret included'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "test" -d 'Send a webhook.test delivery now and report what the endpoint answered'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "enable" -d 'Re-enable a webhook and reset its failure count'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "disable" -d 'Stop event deliveries to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a webhook and its delivery log'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "rotate-secret" -d 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "deliveries" -d 'Show the newest delivery attempts to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "replay" -d 'Queue past events again for a webhook (after its endpoint was down)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "filter-test" -d 'Try a filter on an event before saving it: prints true or false, or why it fails'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "create" -d 'Subscribe a URL to events (at most 10 webhooks per user)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "update" -d 'Change a webhook\'s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "list" -d 'List the user\'s webhooks'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "show" -d 'Show one webhook, its secret included'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "test" -d 'Send a webhook.test delivery now and report what the endpoint answered'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "enable" -d 'Re-enable a webhook and reset its failure count'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "disable" -d 'Stop event deliveries to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "delete" -d 'Delete a webhook and its delivery log'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "rotate-secret" -d 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "deliveries" -d 'Show the newest delivery attempts to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "replay" -d 'Queue past events again for a webhook (after its endpoint was down)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "filter-test" -d 'Try a filter on an event before saving it: prints true or false, or why it fails'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and not __fish_seen_subcommand_from create update list show test enable disable delete rotate-secret deliveries replay filter-test help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l url -d 'The http(s) URL that receives the deliveries' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l event -d 'An event to subscribe to (repeat for several), e.g. post.published' -r -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l profile -d 'Deliver only events of this profile (repeat for several); without it the webhook gets the events of all profiles, and user-wide events' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l filter -d 'Deliver only the events for which this CEL expression over event, profileId and data is true, e.g. \'data.tags.exists(t, t == "breaking")\'' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l retry-schedule -d 'This webhook\'s delays before each retry, comma-separated, as serve\'s --retry-schedule (at most 50; "" for no retry), instead of serve\'s' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l timeout -d 'How long one delivery to this webhook may take (at most 10m), instead of serve\'s --delivery-timeout' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l rate -d 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l signing -d 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook\'s public key alone) or both' -r -f -a "hmac\t''
ed25519\t''
both\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l header -d 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l ordered -d 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l url -d 'The new http(s) URL' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l event -d 'The events to subscribe to, replacing the current ones (repeat for several)' -r -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l profile -d 'Deliver only events of these profiles, replacing the current scope (repeat for several)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l filter -d 'Deliver only the events for which this CEL expression is true, replacing the current filter' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l retry-schedule -d 'This webhook\'s delays before each retry, comma-separated, as serve\'s --retry-schedule (at most 50; "" for no retry), instead of serve\'s' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l timeout -d 'How long one delivery to this webhook may take (at most 10m), instead of serve\'s --delivery-timeout' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l rate -d 'At most this many attempts to this webhook, N/s or N/min (a burst of N), counted across every instance' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l signing -d 'How deliveries are signed: hmac (v1, with the whsec_ secret), ed25519 (v1a, which receivers verify with the webhook\'s public key alone) or both' -r -f -a "hmac\t''
ed25519\t''
both\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l header -d 'A header sent with each delivery, NAME:VALUE (repeat for several; an update sets it, replacing a value the name had). Its value is kept like a secret: NAME:@FILE reads it from a file and NAME:- from standard input, which keep it out of the process list' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l no-header -d 'Stop sending this static header (repeat for several)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l all-profiles -d 'Deliver the events of all profiles, and user-wide events'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l no-filter -d 'Remove the filter: deliver every subscribed event'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l ordered -d 'Deliver one at a time, in the order the events were queued: a failing delivery holds the later ones until it is delivered or exhausted'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l no-retry-schedule -d 'Go back to serve\'s retry schedule'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l no-timeout -d 'Go back to serve\'s delivery timeout'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l no-rate -d 'No rate limit: as fast as the workers go'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l no-ordered -d 'Deliver as fast as the workers go, several at a time, in no particular order'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from test" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from enable" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from disable" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -l grace -d 'Keep signing with the old secret too for this long (0 to 7d; 0 drops it at once)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -s q -l quiet -d 'Print only the new secret (an ed25519 webhook: its new public key; both: the secret, then the public key)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from rotate-secret" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -s f -l follow -d 'Then print each new attempt as it is recorded (one JSON object per line with --json), looking once a second, until SIGINT or SIGTERM'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l since -d 'Replay events since this time: RFC 3339, or a duration ago such as 2h [default: 24h]' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l event -d 'Replay only this event (its id, evt_...)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l failed-only -d 'Only events whose last delivery to this webhook failed; one waiting for its next retry is sent now (not queued twice)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from replay" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l event -d 'The event type: the filter\'s `event`, and without --data its catalog example is the data' -r -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l data -d 'The event\'s data instead of the example: a JSON object, @FILE to read it from a file, or - for stdin' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l profile -d 'The event\'s profile, the filter\'s `profileId` (without it: null)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from filter-test" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "create" -d 'Subscribe a URL to events (at most 10 webhooks per user)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a webhook\'s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the user\'s webhooks'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one webhook, its secret included'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "test" -d 'Send a webhook.test delivery now and report what the endpoint answered'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "enable" -d 'Re-enable a webhook and reset its failure count'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "disable" -d 'Stop event deliveries to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a webhook and its delivery log'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "rotate-secret" -d 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "deliveries" -d 'Show the newest delivery attempts to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "replay" -d 'Queue past events again for a webhook (after its endpoint was down)'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "filter-test" -d 'Try a filter on an event before saving it: prints true or false, or why it fails'
complete -c keyhook -n "__fish_keyhook_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -f -a "emit" -d 'Queue an event for every active webhook of the user subscribed to it'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -f -a "trigger" -d 'Emit the event type\'s example (see event-types), with changes, to try a receiver'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and not __fish_seen_subcommand_from emit trigger help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l data -d 'The event\'s data: a JSON object, @FILE to read it from a file, or - for stdin' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l profile -d 'The profile the event is about: only webhooks whose scope covers it get it; without it the event is user-wide and goes only to webhooks of all profiles' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l idempotency-key -d 'A key for this event (1-255 printable ASCII characters): a repeat with the same key within 24 hours queues nothing and prints the first event' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l profile -d 'The profile the event is about (as events emit --profile)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l set -d 'Change one field of the example (repeatable)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "emit" -d 'Queue an event for every active webhook of the user subscribed to it'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "trigger" -d 'Emit the event type\'s example (see event-types), with changes, to try a receiver'
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -f -a "add" -d 'Add an event type to the catalog'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -f -a "list" -d 'List the event catalog'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -f -a "show" -d 'Show an event type with its schema and example'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -f -a "update" -d 'Change an event type\'s description, schema, example or profile rule'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -f -a "deprecate" -d 'Deprecate an event type: no new subscriptions, existing ones keep receiving'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -f -a "delete" -d 'Delete an event type nothing subscribes to and nothing is pending for'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and not __fish_seen_subcommand_from add list show update deprecate delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l description -d 'What the event means (at most 500 characters)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l schema -d 'A JSON Schema (draft 2020-12) the events\' data must match: a file, or - for stdin' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l example -d 'An example of the events\' data (a JSON object), for `events trigger`: a file, or -' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l profile-required -d 'Events of this type must name a profile (--profile, profileId)'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l user-wide -d 'Events of this type must not name a profile'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -l names -d 'Print only the names, one per line (what shell completion reads)'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l description -d 'What the event means (at most 500 characters)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l schema -d 'A JSON Schema (draft 2020-12) the events\' data must match: a file, or - for stdin' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l example -d 'An example of the events\' data (a JSON object), for `events trigger`: a file, or -' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l profile-required -d 'Events of this type must name a profile (--profile, profileId)'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l user-wide -d 'Events of this type must not name a profile'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l profile-optional -d 'Events of this type may name a profile or not (the default)'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l clear-description -d 'Remove the description'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l clear-schema -d 'Remove the schema: data is no longer checked'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l clear-example -d 'Remove the example'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add an event type to the catalog'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the event catalog'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show an event type with its schema and example'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change an event type\'s description, schema, example or profile rule'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from help" -f -a "deprecate" -d 'Deprecate an event type: no new subscriptions, existing ones keep receiving'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete an event type nothing subscribes to and nothing is pending for'
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -f -a "link" -d 'Mint a single-use link to the developer portal for --user (printed once: a secret)'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -f -a "revoke" -d 'Revoke a link (and end its session), or every link of --user'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -f -a "list" -d 'List --user\'s live links (not yet opened) and sessions'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and not __fish_seen_subcommand_from link revoke list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l profile -d 'Limit the link to this profile (repeat for several); without it: all profiles' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l ttl -d 'How long the link may wait to be opened (at most 24h)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l public-url -d 'Where serve is reached; the link is {public-url}/portal#<token>' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l read-only -d 'The portal shows everything and changes nothing'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from link" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -l all -d 'Every link of --user'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from help" -f -a "link" -d 'Mint a single-use link to the developer portal for --user (printed once: a secret)'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke a link (and end its session), or every link of --user'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from help" -f -a "list" -d 'List --user\'s live links (not yet opened) and sessions'
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l retry-schedule -d 'Delays before each retry of a failed delivery, comma-separated' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l delivery-workers -d 'Deliveries sent at once' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l retention -d 'Delete events, finished deliveries and attempts older than this (at least 1s), in small batches; pending deliveries and their events are kept' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l once -d 'Send what is due now, then exit (for cron) instead of waiting for more'
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand deliver" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l forward-to -d 'Send each delivery here, with its original headers and body; the answer is the delivery\'s (a 500 is retried, a 410 disables). Loopback and private addresses are allowed; {event} in the path is the event\'s name. Without it, deliveries come to a receiver of this process on a loopback port, which checks their signatures' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l event -d 'An event to subscribe to (repeat for several); without it, every event' -r -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l profile -d 'Deliver only events of this profile (repeat for several); without it the events of all profiles, and user-wide events' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l filter -d 'Deliver only events for which this CEL expression over event, profileId and data is true (the webhook\'s filter, as in `webhooks create --filter`)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l retry-schedule -d 'Delays before each retry of a failed delivery, comma-separated' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand listen" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -f -a "copy" -d 'Copy everything in the --db database into an empty database'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -f -a "rekey" -d 'Encrypt the webhook secrets at rest under a new secrets key'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and not __fish_seen_subcommand_from copy rekey help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -l to -d 'The database to copy into, named like --db; it must be empty (a missing file is created)' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from copy" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -l new-key -d 'The new key (base64 of 32 bytes) from this file, or - for standard input; without it a key is generated (only with the key file)' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from rekey" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "copy" -d 'Copy everything in the --db database into an empty database'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "rekey" -d 'Encrypt the webhook secrets at rest under a new secrets key'
complete -c keyhook -n "__fish_keyhook_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l since -d 'Only entries at or after TS (RFC 3339) or this long ago (90m, 7d)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l limit -d 'At most N entries (1 to 1000)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l all-users -d 'The entries of every user'
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand audit" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -l force -d 'Replace FILE if it exists'
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand backup" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l bind -d 'Address to listen on (port 0 picks a free port; the address is printed on stderr)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l threads -d 'Requests handled at once (each connection has its own thread; more wait their turn)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l read-timeout -d 'Disconnect a client that sends nothing for this long (between requests or within one)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l header-timeout -d 'Disconnect a client whose request head (request line and headers) takes longer than this (from connecting for the first request, from its first byte for later ones), or whose request body takes longer than this after the head' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l max-connections -d 'Connections served at once; a connection over the limit is answered 503 and closed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l max-connections-per-address -d 'Of those, connections served at once from one client address (an IPv6 address counts by its /64 prefix); one more from it is answered 503 and closed, so that one client cannot take all of --max-connections. Behind a proxy every client has the proxy\'s address: raise it to --max-connections there' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l rate-limit -d 'Requests per API key, N/s or N/min (burst N), counted by this instance; failed authentications are limited per client address at the same rate. Off when not given' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l auth-profile -d 'Where the URIs that /api/v1/auth is asked about name a profile: a path template with {profile} as one whole segment, matched as a prefix (e.g. /profiles/{profile}/); repeat for several (docs/guarding.md)' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l trusted-proxy -d 'A reverse proxy\'s address or network (e.g. 127.0.0.1/32); only from such peers are X-Forwarded-For / X-Real-IP read as the client\'s address (failed-authentication limit); repeat for several. None by default' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l public-url -d 'Where this server is reached from outside (https://keys.example.com): portal links point there, and the portal\'s cookie is Secure when it is https. Default: http:// and the bound address' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l portal-embed-origin -d 'An https origin allowed to show the portal in a frame (repeat for several); the portal\'s cookie is then SameSite=None; Secure; Partitioned. Needs an https --public-url' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l log-format -d 'How log lines are written on stderr: text, or one JSON object per line (the filter is KEYHOOK_LOG, default info)' -r -f -a "text\t'The message alone, one line per event'
json\t'One JSON object per line: time, level, target, message and the event\'s fields'"
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l retry-schedule -d 'Delays before each retry of a failed delivery, comma-separated' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l delivery-workers -d 'Deliveries sent at once' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l retention -d 'Delete events, finished deliveries and attempts older than this (at least 1s), in small batches; pending deliveries and their events are kept' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l portal-allow-private-targets -d 'Let the portal point webhooks at private and loopback addresses (local development and tests only; --allow-private-targets does not reach the portal)'
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand serve" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -l older-than -d 'Delete events, finished deliveries and attempts older than this (0s: everything finished until now); pending deliveries and their events are kept' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand prune" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -l db -d 'The database: a SQLite file (created, mode 0600, by commands that create something; the others need it to exist), or a PostgreSQL server\'s postgres:// URL' -r -F
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -l user -d 'The user that owns what is created and listed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -l color -d 'When tables use color (NO_COLOR turns auto off)' -r -f -a "auto\t'Color on a terminal, unless NO_COLOR is set'
always\t''
never\t''"
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -l delivery-timeout -d 'How long one webhook delivery may take before it counts as failed' -r -f
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -l json -d 'Print exactly the HTTP API\'s response body ({"data": ...} or {"error": ...})'
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -l allow-private-targets -d 'Allow webhook deliveries to loopback, private and link-local addresses'
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -s V -l version -d 'Print version'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "keys" -d 'Create, list, show, delete, rotate and verify API keys'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "webhooks" -d 'Create, list, test, enable, disable and delete webhook subscriptions'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "events" -d 'Emit events to subscribed webhooks'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "event-types" -d 'Add, list, show, update, deprecate and delete the event types webhooks subscribe to'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "portal" -d 'Mint, revoke and list links to the developer portal that serve shows your customers'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "deliver" -d 'Send queued webhook deliveries (with --once: what is due now, then exit)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "listen" -d 'Receive real, signed deliveries here while this runs (an ephemeral webhook), or forward them to a local URL'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "db" -d 'Copy the whole database into another, empty one'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "audit" -d 'Show the audit log: who changed which key or webhook, newest first'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "backup" -d 'Back up the SQLite database into FILE while others keep writing'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "serve" -d 'Serve the /api/v1 HTTP JSON API (and deliver webhooks)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "prune" -d 'Delete events, finished deliveries and attempts older than a duration, now'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "completions" -d 'Print the completion script for a shell'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and not __fish_seen_subcommand_from keys webhooks events event-types portal deliver listen db audit backup serve prune completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "create" -d 'Create a key and print it; the plaintext is shown this once and never stored'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "list" -d 'List the user\'s keys (never the plaintext)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "show" -d 'Show one key'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "delete" -d 'Delete a key; requests made with it are refused from then on'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "rotate" -d 'Replace a key with a new one of the same name, permission and scope'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "prune" -d 'Delete the user\'s keys that expired more than DUR ago (default 30 days)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "scan" -d 'Find keys in files, directories or standard input; exit 4 if an active one is found'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "verify" -d 'Check a key read from standard input: exit 0 if it may be used, 4 if not'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "create" -d 'Subscribe a URL to events (at most 10 webhooks per user)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "update" -d 'Change a webhook\'s URL, events, scope or filter (what PATCH /webhooks/{id} changes)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "list" -d 'List the user\'s webhooks'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "show" -d 'Show one webhook, its secret included'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "test" -d 'Send a webhook.test delivery now and report what the endpoint answered'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "enable" -d 'Re-enable a webhook and reset its failure count'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "disable" -d 'Stop event deliveries to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "delete" -d 'Delete a webhook and its delivery log'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "rotate-secret" -d 'Give a webhook a new secret (or Ed25519 key pair); the old one keeps signing deliveries during the grace period'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "deliveries" -d 'Show the newest delivery attempts to a webhook'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "replay" -d 'Queue past events again for a webhook (after its endpoint was down)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from webhooks" -f -a "filter-test" -d 'Try a filter on an event before saving it: prints true or false, or why it fails'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "emit" -d 'Queue an event for every active webhook of the user subscribed to it'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "trigger" -d 'Emit the event type\'s example (see event-types), with changes, to try a receiver'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from event-types" -f -a "add" -d 'Add an event type to the catalog'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from event-types" -f -a "list" -d 'List the event catalog'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from event-types" -f -a "show" -d 'Show an event type with its schema and example'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from event-types" -f -a "update" -d 'Change an event type\'s description, schema, example or profile rule'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from event-types" -f -a "deprecate" -d 'Deprecate an event type: no new subscriptions, existing ones keep receiving'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from event-types" -f -a "delete" -d 'Delete an event type nothing subscribes to and nothing is pending for'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from portal" -f -a "link" -d 'Mint a single-use link to the developer portal for --user (printed once: a secret)'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from portal" -f -a "revoke" -d 'Revoke a link (and end its session), or every link of --user'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from portal" -f -a "list" -d 'List --user\'s live links (not yet opened) and sessions'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "copy" -d 'Copy everything in the --db database into an empty database'
complete -c keyhook -n "__fish_keyhook_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "rekey" -d 'Encrypt the webhook secrets at rest under a new secrets key'
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from show" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from delete" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand keys; and __fish_seen_subcommand_from rotate" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from update" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from show" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from test" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from enable" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from disable" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from delete" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from rotate-secret" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from deliveries" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from replay" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand webhooks; and __fish_seen_subcommand_from filter-test" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from emit" -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand events; and __fish_seen_subcommand_from trigger" -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from add" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from show" -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from update" -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from deprecate" -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand event-types; and __fish_seen_subcommand_from delete" -f -a "(keyhook event-types list --names 2>/dev/null)"
complete -c keyhook -n "__fish_keyhook_using_subcommand portal; and __fish_seen_subcommand_from revoke" -f
complete -c keyhook -n "__fish_keyhook_using_subcommand completions" -f -a "bash elvish fish powershell zsh"
