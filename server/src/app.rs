//! The running server: its generators, the tokens in force and its configuration, opened
//! once at start and shared by every listener; and why it could not start.

use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::auth::{Auth, SharedAuth};
use crate::config::{self, Config};
use crate::state::{self, Ids};

/// The running server's state: the generators, the tokens in force, the configuration.
pub struct Server {
    /// The generators.
    pub ids: Ids,
    auth: SharedAuth,
    /// The configuration as loaded at start (tokens and TLS reload on SIGHUP).
    pub config: Config,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("ids", &self.ids)
            .finish_non_exhaustive()
    }
}

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The configuration.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// Opening the store, the lease or a tag.
    #[error(transparent)]
    Open(#[from] state::OpenError),
    /// A listener's address or TLS files.
    #[error("{0}")]
    Listen(String),
}

impl Server {
    /// Opens the generators of a checked configuration.
    pub async fn open(config: Config) -> Result<Arc<Server>, ServeError> {
        let auth = Auth::new(&config.tokens).map_err(|r| config::bad("tokens", r))?;
        let ids = Ids::open(&config).await?;
        Ok(Arc::new(Server {
            ids,
            auth: Arc::new(ArcSwap::from_pointee(auth)),
            config,
        }))
    }

    /// The tokens in force now.
    pub fn auth(&self) -> arc_swap::Guard<Arc<Auth>> {
        self.auth.load()
    }

    /// Reads the configuration file again and puts its tokens in force (SIGHUP). The old ones
    /// stay when the file has an error.
    pub fn reload(&self) -> Result<(), config::ConfigError> {
        let Some(path) = &self.config.path else {
            return Ok(());
        };
        let mut fresh = Config::from_file(path)?;
        // The running listener's address, not the file's: a flag or variable may have set it,
        // and a file without tokens must not open a public address to everyone.
        fresh.listen = self.config.listen;
        fresh.check()?;
        let auth = Auth::new(&fresh.tokens).map_err(|r| config::bad("tokens", r))?;
        self.auth.store(Arc::new(auth));
        Ok(())
    }
}
