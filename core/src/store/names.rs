//! The names that reach a store, checked before they get near one: tags (and the Redis key
//! prefixes, which follow the same grammar) and SQL table and column names.
//!
//! Tags always reach a store as bound parameters or key arguments; the validation here is a
//! second wall (and keeps Redis keys and log lines readable), not the only one. A SQL table
//! name cannot be a bound parameter, so it is held to a strict identifier grammar instead.

use crate::error::quoted_char;
use crate::{Error, Result};

/// The longest tag, in bytes (the SQL column is `VARCHAR(128)`).
pub const MAX_TAG_LEN: usize = 128;

/// The longest table name (PostgreSQL truncates identifiers past 63 bytes).
pub const MAX_TABLE_LEN: usize = 63;

/// Checks a tag name: 1 to 128 bytes of `A-Z a-z 0-9 _ . : -`, starting with a letter or digit.
///
/// ```
/// use idmint_core::segment::validate_tag;
/// assert!(validate_tag("orders.v2").is_ok());
/// assert_eq!(validate_tag("x'; DROP TABLE t; --").unwrap_err().kind(), "invalid_tag");
/// ```
pub fn validate_tag(tag: &str) -> Result<()> {
    let bad_char = tag
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')));
    let reason = if tag.is_empty() {
        Some("a tag is 1 to 128 bytes long, it is empty".to_string())
    } else if tag.len() > MAX_TAG_LEN {
        Some(format!(
            "a tag is 1 to {MAX_TAG_LEN} bytes long, it has {}",
            tag.len()
        ))
    } else if !tag.as_bytes()[0].is_ascii_alphanumeric() {
        Some("a tag starts with a letter or digit".to_string())
    } else {
        bad_char.map(|c| {
            format!(
                "character {} is not allowed: tags use A-Z, a-z, 0-9, `_`, `.`, `:` and `-`",
                quoted_char(c)
            )
        })
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(Error::InvalidTag {
            tag: tag.escape_default().to_string(),
            reason,
        }),
    }
}

/// Checks a SQL table name: 1 to 63 bytes of `A-Z a-z 0-9 _`, starting with a letter or `_`.
///
/// The table name is formatted into SQL text (identifiers cannot be bound parameters), so this
/// grammar is deliberately narrower than what databases accept; the name is quoted as well.
///
/// ```
/// use idmint_core::segment::validate_table;
/// assert!(validate_table("idmint_segments").is_ok());
/// assert!(validate_table("segments; DROP TABLE users").is_err());
/// ```
pub fn validate_table(table: &str) -> Result<()> {
    let ok = !table.is_empty()
        && table.len() <= MAX_TABLE_LEN
        && (table.as_bytes()[0].is_ascii_alphabetic() || table.as_bytes()[0] == b'_')
        && table
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidTag {
            tag: table.escape_default().to_string(),
            reason: format!(
                "a table name is 1 to {MAX_TABLE_LEN} bytes of A-Z, a-z, 0-9 and `_`, starting with a letter or `_`"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags() {
        for ok in ["a", "orders", "Orders-2024.v1:eu_west", &"x".repeat(128)] {
            validate_tag(ok).unwrap();
        }
        for bad in [
            "",
            "-a",
            "_a",
            "a b",
            "a'b",
            "a\"b",
            "a;b",
            "a{b}",
            "é",
            "a\0",
            &"x".repeat(129),
        ] {
            assert_eq!(
                validate_tag(bad).unwrap_err().kind(),
                "invalid_tag",
                "{bad:?}"
            );
        }
    }

    #[test]
    fn tables() {
        for ok in ["t", "_t", "idmint_segments", &"t".repeat(63)] {
            validate_table(ok).unwrap();
        }
        for bad in [
            "",
            "1t",
            "a-b",
            "a.b",
            "a\"b",
            "a`b",
            "a b",
            &"t".repeat(64),
        ] {
            assert!(validate_table(bad).is_err(), "{bad:?}");
        }
    }
}
