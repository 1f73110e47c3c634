//! The keyhook binary: it wires the crates together and does nothing else. The command line
//! (keyhook-cli) gets the backend its `--db` names (a file: keyhook-sqlite; a postgres:// URL:
//! keyhook-postgres) and, for `serve`, the HTTP front end (keyhook-http) with the outbox
//! worker (keyhook-delivery) beside it.

use std::net::SocketAddr;
use std::sync::Arc;

use keyhook_cli::serve::ServeConfig;
use keyhook_cli::DbLocation;
use keyhook_core::stop::Stop;
use keyhook_core::store::Backend;
use keyhook_core::Error;
use keyhook_delivery::client::Sender;
use keyhook_delivery::worker;
use keyhook_http::{ServeOptions, Server};
use keyhook_postgres::PgBackend;
use keyhook_sqlite::SqliteBackend;

struct Wiring;

impl keyhook_cli::Wiring for Wiring {
    fn backend(
        &self,
        db: &DbLocation,
        create: bool,
        pool_size: u32,
    ) -> Result<Arc<dyn Backend>, Error> {
        match db {
            DbLocation::File(path) => {
                let file = SqliteBackend::new(path, create, pool_size);
                // A pool of one is a command that runs and exits (`serve`, `deliver` and
                // `listen` ask for more): each of its commits is durable by itself.
                Ok(Arc::new(if pool_size == 1 {
                    file.for_one_command()
                } else {
                    file
                }))
            }
            DbLocation::Server(url) => Ok(Arc::new(PgBackend::new(url, pool_size, create)?)),
        }
    }

    /// The one decision of which URLs name a database: PostgreSQL's (its crate owns their
    /// shape, `url::normalize`); any other scheme is refused.
    fn database_url(&self, url: &str) -> Result<String, String> {
        keyhook_postgres::url::normalize(url).unwrap_or_else(|| {
            let scheme = url.split("://").next().unwrap_or_default();
            Err(format!(
                "unsupported scheme '{scheme}': a database is a file path or a postgres:// URL"
            ))
        })
    }

    fn serve(
        &self,
        mut config: ServeConfig,
        stop: Arc<Stop>,
        listening: &dyn Fn(SocketAddr),
    ) -> Result<(), Error> {
        let db = Arc::clone(&config.db);
        let server = Server::start(
            ServeOptions {
                bind: config.bind,
                db: Arc::clone(&config.db),
                read_timeout: config.read_timeout,
                header_timeout: config.header_timeout,
                max_connections: config.max_connections,
                max_connections_per_address: config.max_connections_per_address,
                transport: Arc::new(Sender::new(&config.delivery.client)),
                allow_private: config.delivery.client.allow_private,
                clock: config.clock,
                rate_limit: config.rate_limit,
                access_log: config.access_log,
                auth_profiles: config.auth_profiles,
                trusted_proxies: config.trusted_proxies,
                portal: config.portal,
            },
            Arc::clone(&stop),
        )?;
        // The worker records what it settles in the server's /metrics.
        let metrics = server.metrics();
        config.delivery.on_settled = Some(Arc::new(move |s: &worker::Summary| {
            metrics.settled(s.delivered, s.retrying, s.failed, s.cancelled)
        }));
        let outbox = worker::spawn(config.db, config.delivery, stop)?;
        listening(server.addr());
        server.run_until_stopped();
        let _ = outbox.join();
        // The file whole when serve stops (docs/backup.md): its connections close now, the
        // last one folding the log back, whatever thread still holds the backend.
        db.close_idle();
        Ok(())
    }
}

fn main() {
    std::process::exit(keyhook_cli::main(&Wiring));
}
