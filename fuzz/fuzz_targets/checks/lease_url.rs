//! Worker-lease store URLs: as the segment store URLs, with the lease defaults.

use idmint_core::fuzzing::lease_url;

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    let Ok(url) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(plan) = lease_url(url) {
        super::common::check_plan(url, &plan);
    }
}
