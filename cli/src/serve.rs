//! `idmint serve`: reads the configuration and runs the server (crate idmint-server) on a
//! multi-threaded runtime until SIGTERM or Ctrl-C.

use idmint_server::config::{Config, ServeArgs};
use idmint_server::ServeError;

use crate::report::CliError;

pub fn run(args: &ServeArgs) -> Result<(), CliError> {
    let config = Config::load(args).map_err(|e| CliError::Serve(e.into()))?;
    idmint_server::listen::init_logging(&config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("idmint-serve")
        .build()?;
    runtime
        .block_on(idmint_server::run(config))
        .map_err(CliError::Serve)?;
    // The lease is released; what is left on the runtime (idle connections) is not waited for.
    runtime.shutdown_background();
    Ok(())
}

impl From<ServeError> for CliError {
    fn from(e: ServeError) -> Self {
        CliError::Serve(e)
    }
}
