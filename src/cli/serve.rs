use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Args;

use super::Context;
use crate::http::{ServeOptions, Server};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the address is printed on stderr)
    #[arg(
        long,
        env = "KEYHOOK_BIND",
        default_value = "127.0.0.1:8787",
        value_name = "ADDR"
    )]
    bind: String,
    /// Worker threads answering requests
    #[arg(long, env = "KEYHOOK_THREADS", default_value_t = 4,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    #[command(flatten)]
    delivery: super::deliver::DeliveryArgs,
}

pub fn run(ctx: &Context, args: ServeArgs) -> anyhow::Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let opts = ServeOptions {
        bind: args.bind,
        threads: usize::from(args.threads),
        db: crate::config::database_path(ctx.db.clone())?,
        delivery: args.delivery.worker_options(ctx, false),
    };
    let db = opts.db.display().to_string();
    let server = Server::start(opts, Arc::clone(&stop))?;
    eprintln!(
        "keyhook: listening on http://{} (database {db})",
        server.addr()
    );
    server.run_until_stopped();
    eprintln!("keyhook: stopped");
    Ok(())
}
