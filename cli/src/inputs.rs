//! Values for the commands that transform IDs (`encode`, `obfuscate`, ...): the arguments, or
//! else one a line from standard input, so they work at the end of a pipe.

use std::io::{self, BufRead};

use crate::report::CliError;

/// Call `each` on every argument, or on every non-empty line of stdin when there are none.
pub fn for_each(
    args: &[String],
    mut each: impl FnMut(&str) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if !args.is_empty() {
        return args.iter().try_for_each(|a| each(a));
    }
    for line in io::stdin().lock().lines() {
        let line = line.map_err(|e| {
            CliError::Core(idmint_core::Error::InvalidArgument {
                name: "stdin".into(),
                value: "(input)".into(),
                expected: format!("readable UTF-8 lines ({e})"),
            })
        })?;
        let line = line.trim();
        if !line.is_empty() {
            each(line)?;
        }
    }
    Ok(())
}
