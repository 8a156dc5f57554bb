//! What the user sees on stderr when something is off: notes, errors, and the exit code that goes
//! with each error.

use std::fmt::Display;
use std::io::{self, Write};
use std::process::ExitCode;

/// A failure of a command.
#[derive(Debug)]
pub enum CliError {
    /// The core refused the request; its message is written for users as it is.
    Core(idmint_core::Error),
    /// Writing the output failed.
    Io(io::Error),
    /// The server could not start (`idmint serve`); its message names the configuration key.
    Serve(idmint_server::ServeError),
    /// A check the command made failed (`idmint layouts check-migration`, `idmint probe`): exit 1,
    /// the reason (a probe's names the URL and the answer).
    Check(String),
}

impl From<idmint_core::Error> for CliError {
    fn from(e: idmint_core::Error) -> Self {
        CliError::Core(e)
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        CliError::Io(e)
    }
}

/// Print `note: ...` on stderr.
pub fn note(message: impl Display) {
    // A closed stderr must not turn a successful run into a failure (or a panic, as eprintln!
    // would), so the write's outcome is ignored.
    let _ = writeln!(io::stderr(), "note: {message}");
}

/// Print the error and give the exit code for it: 2 when an argument could not be read (the same
/// code clap uses for usage errors), 1 when the arguments were read but the request fails.
pub fn fail(err: CliError) -> ExitCode {
    let code = match &err {
        // The reader went away (`idmint snowflake --count 1000000 | head -1`): it got what it
        // wanted, so this is a normal end, as for other Unix tools.
        CliError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        CliError::Io(_) => 1,
        CliError::Core(
            idmint_core::Error::InvalidArgument { .. } | idmint_core::Error::InvalidLayout { .. },
        ) => 2,
        CliError::Core(_) => 1,
        CliError::Serve(idmint_server::ServeError::Config(_)) => 2,
        CliError::Serve(_) => 1,
        CliError::Check(_) => 1,
    };
    let message = match &err {
        CliError::Core(e) => e.to_string(),
        CliError::Io(e) => format!("cannot write output: {e}"),
        CliError::Serve(e) => e.to_string(),
        CliError::Check(reason) => reason.clone(),
    };
    let _ = writeln!(io::stderr(), "error: {message}");
    ExitCode::from(code)
}
