//! Daily-counter URLs and names: a URL and name that are read name an engine the same way the
//! segment store URL reader does, and the name's day tags are valid tags.
//! Input: the URL, then a line with the counter's name.

use idmint_core::fuzzing::{counter_url, store_url};
use idmint_core::segment::validate_tag;

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (url, name) = text.split_once('\n').unwrap_or((text, "orders"));
    if let Ok(engine) = counter_url(url, name) {
        validate_tag(&format!("{name}:20240522")).expect("a counter's day tag is valid");
        // Redis counters take no idmint parameters; every other engine reads them as a store.
        if let Ok(plan) = store_url(url) {
            assert_eq!(plan.engine, engine, "{url:?}");
        }
    }
}
